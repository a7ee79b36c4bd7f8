from pathlib import Path

import pytest

from service.db.cypher_registry import CypherRegistry, CypherRegistryError
from service.settings import project_root


def _write(root: Path, name: str, text: str) -> None:
    path = root / f"{name}.cypher"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_names_modes_and_parameters(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "graph/neighbours",
        "// mode: read\n// why\nMATCH (k {id: $id}) RETURN k LIMIT $limit;\n",
    )
    _write(tmp_path, "ingest/put", "// mode: write\nUNWIND $rows AS row MERGE (n:X {id: row.id})")
    registry = CypherRegistry.load(tmp_path)
    assert registry.names() == ["graph/neighbours", "ingest/put"]
    stmt = registry.get("graph/neighbours")
    assert stmt.mode == "read"
    assert stmt.text == "MATCH (k {id: $id}) RETURN k LIMIT $limit"
    assert stmt.parameters == ("id", "limit")
    assert registry.get("ingest/put").parameters == ("rows",)


def test_parameters_inside_strings_are_not_parameters(tmp_path: Path) -> None:
    _write(tmp_path, "s", "// mode: read\nRETURN '$notaparam; nor this' AS x, $real AS y")
    assert CypherRegistry.load(tmp_path).get("s").parameters == ("real",)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("MATCH (n) RETURN n", "mode"),
        ("// mode: delete\nMATCH (n) RETURN n", "mode"),
        ("// mode: read\nRETURN 1; RETURN 2", "one statement"),
        ("// mode: read\n", "no statement"),
    ],
)
def test_malformed_files_are_rejected(tmp_path: Path, text: str, message: str) -> None:
    _write(tmp_path, "bad", text)
    with pytest.raises(CypherRegistryError, match=message):
        CypherRegistry.load(tmp_path)


def test_declared_columns_make_a_packed_statement(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "r",
        "// mode: read\n// returns: a, b\n// returns: c\n"
        "UNWIND [1, 2] AS a RETURN a, 2 AS b, 3 AS c",
    )
    _write(tmp_path, "plain", "// mode: read\nRETURN 1 AS a")
    registry = CypherRegistry.load(tmp_path)
    stmt = registry.get("r")
    assert stmt.columns == ("a", "b", "c")
    assert stmt.text == "UNWIND [1, 2] AS a RETURN a, 2 AS b, 3 AS c"  # what Browser is given
    assert stmt.packed_text == (
        "CALL () {\nUNWIND [1, 2] AS a RETURN a, 2 AS b, 3 AS c\n}\n"
        "RETURN collect({a: a, b: b, c: c}) AS rows"
    )
    assert registry.get("plain").columns == ()


@pytest.mark.parametrize(
    "header",
    [
        "// mode: write\n// returns: a",
        "// mode: read\n// returns: a, b c",
        "// mode: read\n// returns: `a`",
    ],
)
def test_columns_are_declared_only_on_reads_and_as_plain_names(tmp_path: Path, header: str) -> None:
    _write(tmp_path, "bad", header + "\nRETURN 1 AS a")
    with pytest.raises(CypherRegistryError, match="returns"):
        CypherRegistry.load(tmp_path)


def test_unknown_name(tmp_path: Path) -> None:
    _write(tmp_path, "a", "// mode: read\nRETURN 1")
    with pytest.raises(CypherRegistryError, match="no Cypher statement named 'b'"):
        CypherRegistry.load(tmp_path).get("b")


def test_shipped_registry_loads_and_every_file_declares_a_mode() -> None:
    registry = CypherRegistry.load(project_root() / "cypher")
    assert len(registry) >= 10
    assert {s.mode for s in registry} <= {"read", "write", "schema"}
    # schema/: applied at start-up; scope/: one large scope's own index, applied by ingest;
    # embeddings/: a switched-to model's shared vector index, applied by the switch.
    assert all(
        s.name.startswith(("schema/", "scope/", "embeddings/"))
        for s in registry
        if s.mode == "schema"
    )


def test_leading_browser_param_lines_are_kept_apart_from_the_statement(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "explore/kp",
        ":param scope => 'waterglass';\n:param id=>'a;b'\n// mode: read\n// returns: n\n"
        "MATCH (k {scope: $scope, id: $id}) RETURN k.id AS n\n",
    )
    _write(
        tmp_path,
        "explore/after_header",
        "// mode: read\n// why\n:param path => 'waterglass/waterglass.md';\n"
        "MATCH (d {path: $path}) RETURN d",
    )
    registry = CypherRegistry.load(tmp_path)
    stmt = registry.get("explore/kp")
    assert (stmt.mode, stmt.columns) == ("read", ("n",))
    assert stmt.text == "MATCH (k {scope: $scope, id: $id}) RETURN k.id AS n"
    assert stmt.browser_params == (("scope", "'waterglass'"), ("id", "'a;b'"))
    assert stmt.browser_text == (
        ":param scope => 'waterglass';\n:param id => 'a;b';\n"
        "MATCH (k {scope: $scope, id: $id}) RETURN k.id AS n"
    )
    after = registry.get("explore/after_header")
    assert after.text == "MATCH (d {path: $path}) RETURN d"
    assert after.browser_params == (("path", "'waterglass/waterglass.md'"),)
    assert registry.get("explore/after_header").mode == "read"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (":params {scope: 'a'}\n// mode: read\nRETURN $scope", "must read"),
        (":param scope: 'a'\n// mode: read\nRETURN $scope", "must read"),
        (":param scope =>\n// mode: read\nRETURN $scope", "must read"),
        (":param a => 1;\n:param a => 2;\n// mode: read\nRETURN $a", "set twice"),
        (":param a => 1;\n// mode: read\nRETURN $a, $b", r"set \['a'\], the statement uses"),
        (":param a => 1;\n:param b => 2;\n// mode: read\nRETURN $a", "the statement uses"),
    ],
)
def test_malformed_browser_param_lines_are_rejected(
    tmp_path: Path, text: str, message: str
) -> None:
    _write(tmp_path, "bad", text)
    with pytest.raises(CypherRegistryError, match=message):
        CypherRegistry.load(tmp_path)
