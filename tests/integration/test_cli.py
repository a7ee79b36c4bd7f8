"""The `kgs` command line against the real database."""

import json
import subprocess
import sys

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
