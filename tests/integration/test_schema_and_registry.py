import pytest
from neo4j import Query

from service.db import Graph
from service.db.cypher_registry import CypherRegistry
from service.db.schema import KGS_INDEXES, apply_schema, index_report
from service.settings import project_root

_SHIPPED = CypherRegistry.load(project_root() / "cypher")
_EXPECTED_QUERY_TYPES = {"read": {"r"}, "write": {"w", "rw"}, "schema": {"s"}}


def test_indexes_are_online_and_schema_is_idempotent(graph: Graph) -> None:
    states = apply_schema(graph)  # second application: nothing changes, nothing fails
    assert {s.name for s in states} == KGS_INDEXES
    assert all(s.state == "ONLINE" for s in states)
    by_name = {s.name: s.type for s in index_report(graph)}
    assert by_name["paragraph_search"] == "FULLTEXT"
    assert by_name["knowledge_point_search"] == "FULLTEXT"
    assert by_name["paragraph_embedding"] == "VECTOR"


def test_vector_index_has_384_cosine_dimensions(graph: Graph) -> None:
    rows = graph.read_text(
        "SHOW VECTOR INDEXES YIELD name, options WHERE name = 'paragraph_embedding' RETURN options",
        {},
    )
    config = rows[0]["options"]["indexConfig"]
    assert config["vector.dimensions"] == 384
    assert config["vector.similarity_function"].lower() == "cosine"


@pytest.mark.parametrize("name", _SHIPPED.names())
def test_every_statement_explains_with_its_declared_mode(graph: Graph, name: str) -> None:
    """EXPLAIN compiles each file on the real server: a syntax error fails here, and so does a
    file declared read-only that would write."""
    stmt = graph.registry.get(name)
    kind = graph.query_type(stmt.text)
    assert kind in _EXPECTED_QUERY_TYPES[stmt.mode], f"{name}: EXPLAIN says {kind!r}"


@pytest.mark.parametrize("name", [s.name for s in _SHIPPED if s.columns])
def test_declared_columns_are_the_columns_the_statement_returns(graph: Graph, name: str) -> None:
    """A packed statement is collected under its declared names: a column the file returns but
    does not declare would be lost, a declared one it does not return would fail."""
    stmt = graph.registry.get(name)
    with graph.driver.session(database=graph.database) as session:
        result = session.run(Query("EXPLAIN " + stmt.text))
        keys = tuple(result.keys())
        result.consume()
    assert stmt.columns == keys
