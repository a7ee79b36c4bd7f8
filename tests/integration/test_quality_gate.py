"""The shipped knowledge base's quality gate, run as a user runs it: `kgs eval` on its gold
question file with `--gate`, against the real Neo4j. The scopes the file asks are ingested under
a unique prefix (the test owns its data), and the file's scopes and gold paths renamed to match."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from ingest.embeddings import SentenceTransformerEmbedder
from ingest.pipeline import IngestOptions, ingest
from service.db import Graph
from service.settings import Settings, project_root
from tests.integration.conftest import delete_scope

SHIPPED = project_root() / "knowledge_base"
GOLD = SHIPPED / "gold-questions.jsonl"
GATE = SHIPPED / "gate.toml"
KGS = str(Path(sys.executable).with_name("kgs"))
RUN_TIMEOUT_S = 900


@pytest.fixture(scope="module")
def gold_file(
    graph: Graph, settings: Settings, embedder: SentenceTransformerEmbedder,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Path]:  # fmt: skip
    prefix = f"g{uuid.uuid4().hex[:6]}-"
    rows = [json.loads(line) for line in GOLD.read_text(encoding="utf-8").splitlines() if line]
    scopes = sorted({row["scope"] for row in rows})
    root = tmp_path_factory.mktemp("gold-kb")
    for scope in scopes:
        shutil.copytree(SHIPPED / scope, root / f"{prefix}{scope}")
    assert ingest(graph, embedder, root, IngestOptions(), settings.ingest).added
    renamed = root.parent / "gold-questions.jsonl"
    with renamed.open("w", encoding="utf-8") as out:
        for row in rows:
            row["scope"] = prefix + row["scope"]
            row["gold"] = [prefix + path for path in row.get("gold", [])]
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    try:
        yield renamed
    finally:
        for scope in scopes:
            delete_scope(graph, prefix + scope)


def _eval(cli_env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([KGS, "eval", *args], env=cli_env, capture_output=True, text=True,
                          timeout=RUN_TIMEOUT_S, cwd=project_root())  # fmt: skip


def test_the_shipped_knowledge_base_passes_its_gate(
    gold_file: Path, cli_env: dict[str, str]
) -> None:
    done = _eval(cli_env, str(gold_file), "--gate", str(GATE))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "MRR@10" in done.stdout and "evidence coverage" in done.stdout
    passed = [line for line in done.stdout.splitlines() if line.startswith("gate ")]
    assert len(passed) == 5 and all(line.endswith(": ok") for line in passed), passed
    assert "GATE FAILED" not in done.stderr


def test_a_missed_gate_fails_the_run_and_says_by_how_much(
    gold_file: Path, cli_env: dict[str, str], tmp_path: Path
) -> None:
    strict = tmp_path / "strict.toml"
    strict.write_text("[min]\nprecision_at_10 = 0.9\nrecall_at_1 = 0.5\n[max]\nconflict_rate = 1\n")
    done = _eval(cli_env, str(gold_file), "--gate", str(strict), "--limit", "10")
    assert done.returncode == 1
    failed = [line for line in done.stderr.splitlines() if line.startswith("GATE FAILED")]
    assert len(failed) == 1 and "precision_at_10" in failed[0] and "missed by" in failed[0]
    assert [line for line in done.stdout.splitlines() if line.startswith("gate recall_at_1")]


def test_a_bad_gate_file_is_refused_before_any_question(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[min]\nrecal_at_5 = 0.9\n")
    done = _eval(cli_env, str(GOLD), "--gate", str(bad))
    assert done.returncode == 1 and "unknown metric" in done.stderr and "recall_at_5" in done.stderr
    assert "questions" not in done.stdout  # nothing ran
