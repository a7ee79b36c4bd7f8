"""Neo4j access: route selection, the local server, the Cypher registry, schema, the Graph."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Literal

from service.db.cypher_registry import CypherRegistry
from service.db.graph import Graph, open_driver
from service.db.schema import apply_schema
from service.db.selection import Connection, connect
from service.settings import Settings

__all__ = ["Graph", "graph_session", "open_graph"]


def open_graph(
    settings: Settings,
    *,
    purpose: Literal["service", "tests"] = "service",
    ensure_schema: bool = True,
) -> tuple[Graph, Connection, Callable[[], None]]:
    """Provision the chosen database, connect, apply the schema; returns a closer."""
    connection, release = connect(settings, purpose=purpose)
    driver = open_driver(settings.neo4j, connection.uri, connection.password)
    graph = Graph(
        driver,
        CypherRegistry.load(settings.cypher_dir),
        database=connection.database,
        query_timeout_s=settings.neo4j.query_timeout_s,
    )
    try:
        driver.verify_connectivity()
        if ensure_schema:
            apply_schema(graph)
    except BaseException:
        driver.close()
        release()
        raise

    def close() -> None:
        driver.close()
        release()

    return graph, connection, close


@contextmanager
def graph_session(settings: Settings, *, ensure_schema: bool = True) -> Iterator[Graph]:
    graph, _, close = open_graph(settings, ensure_schema=ensure_schema)
    try:
        yield graph
    finally:
        close()
