"""Rows come back exactly as the driver's Record.data() would give them, whether they take the
fast path (plain values) or the driver's conversion (nodes, temporal values)."""

from __future__ import annotations

from pathlib import Path

from neo4j import Query

from service.db import Graph
from service.db.cypher_registry import CypherRegistry

STATEMENT = (
    "RETURN 1 AS int, 1.5 AS float, 'x' AS text, null AS nothing, true AS flag, "
    "[1, 2.5, 'a', null, [3, [4]]] AS nested, {k: [1, {m: 'n'}], e: null} AS map, "
    "date('2026-01-02') AS day, [date('2026-01-03')] AS days, {d: date('2026-01-04')} AS dmap, "
    "$blob AS blob, [{b: $blob}] AS blobs"
)
PARAMETERS = {"blob": b"\x93\x00stored"}


def test_rows_equal_record_data(graph: Graph) -> None:
    with graph.driver.session(database=graph.database) as session:
        expected = [r.data() for r in session.run(Query(STATEMENT), PARAMETERS)]
    rows = graph.read_text(STATEMENT, PARAMETERS)
    assert rows == expected
    assert [type(v) for v in rows[0].values()] == [type(v) for v in expected[0].values()]


def test_nodes_still_become_maps(graph: Graph, scope: str) -> None:
    with graph.driver.session(database=graph.database) as session:
        session.run("CREATE (:RowProbe {id: $id, at: date('2026-01-05')})", id=scope).consume()
        try:
            rows = graph.read_text("MATCH (n:RowProbe {id: $id}) RETURN n", {"id": scope})
        finally:
            session.run("MATCH (n:RowProbe {id: $id}) DELETE n", id=scope).consume()
    assert len(rows) == 1 and rows[0]["n"]["id"] == scope and type(rows[0]["n"]) is dict


PACKED = (
    "UNWIND range(1, 60) AS i\n"
    "RETURN i, 'p' + toString(i) AS id, CASE WHEN i % 3 = 0 THEN null ELSE [i, 0.5] END AS list,\n"
    "       {k: i} AS map, $blob AS blob\n"
    "ORDER BY i % 7, i DESC"
)


def test_packed_rows_equal_the_rows_of_the_plain_statement(graph: Graph, tmp_path: Path) -> None:
    """A statement that declares its columns travels in one record; the caller sees the same
    rows, in the statement's own order, as running its text row by row."""
    (tmp_path / "packed.cypher").write_text(
        "// mode: read\n// returns: i, id, list, map, blob\n" + PACKED, encoding="utf-8"
    )
    registry = CypherRegistry.load(tmp_path)
    packed = Graph(graph.driver, registry, database=graph.database, query_timeout_s=30)
    rows = packed.read("packed", **PARAMETERS)
    assert rows == graph.read_text(PACKED, PARAMETERS)
    assert [r["i"] for r in rows[:3]] == [56, 49, 42]
    assert packed.calls[-1].rows == 60
