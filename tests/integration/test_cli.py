"""The `kgs` command line against the real database."""

import json
import subprocess
import sys
from pathlib import Path

from service.db import Graph

KGS = [sys.executable, "-m", "service.cli"]


def _kgs(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*KGS, *args], env=env, capture_output=True, text=True, timeout=120)


def test_cypher_runs_a_named_read_statement(cli_env: dict[str, str]) -> None:
    result = _kgs(cli_env, "cypher", "admin/ping")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [{"ok": 1}]


def test_cypher_runs_text_with_parameters(cli_env: dict[str, str]) -> None:
    result = _kgs(
        cli_env, "cypher", "RETURN $n + 1 AS m, $s AS s", "--param", "n=41", "--param", "s=x"
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [{"m": 42, "s": "x"}]


def test_cypher_refuses_writes_and_writes_nothing(cli_env: dict[str, str], graph: Graph) -> None:
    before = graph.read_text("MATCH (n:CliProbe) RETURN count(n) AS n", {})[0]["n"]
    text = _kgs(cli_env, "cypher", "CREATE (n:CliProbe) RETURN n")
    named = _kgs(
        cli_env, "cypher", "admin/delete_scope_batch", "--param", "scope=x", "--param", "limit=1"
    )
    assert text.returncode == 1 and "refused" in text.stderr
    assert named.returncode == 1 and "refused" in named.stderr
    assert graph.read_text("MATCH (n:CliProbe) RETURN count(n) AS n", {})[0]["n"] == before


def test_cypher_names_missing_parameters(cli_env: dict[str, str]) -> None:
    result = _kgs(cli_env, "cypher", "admin/index_states_missing_file")
    assert result.returncode == 1  # not a registry name: taken as Cypher text, which fails to parse
    assert "kgs: Neo4j" in result.stderr


def test_eval_measures_a_question_file_as_a_client_sees_it(
    cli_env: dict[str, str], scope: str, tmp_path: Path
) -> None:
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "kettle.md").write_text(
        "# Kettle descaling\n\nTo descale the kettle, fill it with one part white vinegar and "
        "two parts water, boil it, and leave it to stand for one hour before rinsing twice.\n",
        encoding="utf-8",
    )
    (kb / "toaster.md").write_text(
        "# Toaster crumbs\n\nEmpty the crumb tray of the toaster once a week: slide it out from "
        "the base, shake it over the bin and slide it back until it clicks.\n",
        encoding="utf-8",
    )
    ingested = _kgs(cli_env, "ingest", str(kb), "--scope", scope, "--no-progress")
    assert ingested.returncode == 0, ingested.stderr
    questions = tmp_path / "qa.jsonl"
    questions.write_text(
        '{"id": "k", "question": "how do I descale the kettle?", '
        '"answers": ["fill it with vinegar and water and boil it"], '
        f'"gold": ["{scope}/kettle.md"]}}\n'
        '{"id": "t", "question": "how often is the toaster crumb tray emptied?", '
        f'"gold": ["{scope}/toaster.md"]}}\n',
        encoding="utf-8",
    )
    out = tmp_path / "outcomes.jsonl"
    result = _kgs(cli_env, "eval", str(questions), "--scope", scope, "--json", "--out", str(out))
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["questions"] == 2 and report["answerable"] == 2
    assert report["recall"]["@1"] == 1.0  # each question's own page ranks first
    assert report["answerable_refused"] == 0.0
    assert report["answer_f1"] is not None and report["answer_f1"] > 0.2
    outcomes = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [o["documents"][0] for o in outcomes] == [f"{scope}/kettle.md", f"{scope}/toaster.md"]


def test_eval_refuses_a_bad_question_file(cli_env: dict[str, str], tmp_path: Path) -> None:
    questions = tmp_path / "qa.jsonl"
    questions.write_text('{"question": "a?"}\n{"question": 1}\n', encoding="utf-8")
    result = _kgs(cli_env, "eval", str(questions), "--scope", "any")
    assert result.returncode == 1 and "qa.jsonl:2" in result.stderr


def test_document_lifecycle_changes_and_retention_from_the_command_line(
    cli_env: dict[str, str], scope: str, tmp_path: Path, graph: Graph
) -> None:
    env = {**cli_env, "KGS_EMBEDDINGS": "off"}
    file = tmp_path / "geyser.md"
    for edition in ("erupts hot water", "erupts steam and hot water"):
        file.write_text(f"# Geyser\n\nA geyser {edition} at intervals.\n", encoding="utf-8")
        ingested = _kgs(env, "ingest", str(file), "--scope", scope, "--no-progress")
        assert ingested.returncode == 0, ingested.stderr
    [row] = graph.read_text(
        "MATCH (d:Document {scope: $scope}) RETURN d.id AS id", {"scope": scope}
    )
    doc = str(row["id"])

    versions = _kgs(env, "document", "versions", doc)
    assert versions.returncode == 0, versions.stderr
    assert "head version 2" in versions.stdout and "* v2" in versions.stdout
    assert "  v1" in versions.stdout
    stale = _kgs(env, "document", "withdraw", doc, "--if-match", "1")
    assert stale.returncode == 1 and "not version 1" in stale.stderr
    assert _kgs(env, "document", "withdraw", doc, "--if-match", "2").returncode == 0
    restored = _kgs(env, "document", "restore", doc)
    assert restored.returncode == 0 and "restored at version 2" in restored.stdout, restored.stderr

    changes = _kgs(env, "changes", scope)
    events = [json.loads(line) for line in changes.stdout.splitlines()]
    assert [(e["seq"], e["kind"]) for e in events] == [
        (1, "added"), (2, "updated"), (3, "withdrawn"), (4, "restored")
    ]  # fmt: skip
    later = _kgs(env, "changes", scope, "--after", "3")
    assert [json.loads(line)["seq"] for line in later.stdout.splitlines()] == [4]

    dry = _kgs(env, "retention", "apply", "--dry-run", "--scope", scope)
    assert dry.returncode == 0 and "would release 0" in dry.stdout  # v1 is young and among the 10
    released = _kgs({**env, "KGS_VERSIONS_KEEP_LAST": "1", "KGS_VERSIONS_KEEP_AGE_S": "0"},
                    "retention", "apply", "--scope", scope)  # fmt: skip
    assert released.returncode == 0 and "released 1" in released.stdout, released.stdout
    assert "  v1" not in _kgs(env, "document", "versions", doc).stdout
    assert _kgs(env, "document", "purge", doc).returncode == 0
    gone = _kgs(env, "document", "versions", doc)
    assert gone.returncode == 1 and "not found" in gone.stderr
