"""A real Neo4j for the whole session, chosen like the service chooses it (NEO4J_URI, Docker via
testcontainers, or the local server). Tests isolate their data in a unique scope each."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser

from ingest.embeddings import SentenceTransformerEmbedder
from service.db import Graph, open_graph
from service.db.selection import Connection
from service.embedding_space import DEFAULT_SPACE
from service.settings import Settings
from tests.integration.browser import launch_chromium

_DELETE_BATCH = 5_000


@pytest.fixture(scope="session")
def settings() -> Settings:
    return Settings.from_env()


@pytest.fixture(scope="session")
def database(settings: Settings) -> Iterator[tuple[Graph, Connection]]:
    graph, connection, close = open_graph(settings, purpose="tests")
    yield graph, connection
    close()


@pytest.fixture(scope="session")
def graph(database: tuple[Graph, Connection]) -> Graph:
    return database[0]


@pytest.fixture(scope="session")
def connection(database: tuple[Graph, Connection]) -> Connection:
    return database[1]


@pytest.fixture(scope="session")
def cli_env(connection: Connection) -> dict[str, str]:
    """Environment for running the `kgs` CLI against the test database."""
    return {
        **os.environ,
        "NEO4J_URI": connection.uri,
        "NEO4J_USER": connection.user,
        "NEO4J_PASSWORD": connection.password,
        "NEO4J_DATABASE": connection.database,
    }


@pytest.fixture
def scope(graph: Graph) -> Iterator[str]:
    """A scope name no other test uses; everything in it is deleted afterwards."""
    name = f"test-{uuid.uuid4().hex[:10]}"
    yield name
    delete_scope(graph, name)


def delete_scope(graph: Graph, name: str) -> None:
    while True:
        result = graph.in_write_transaction(
            lambda tx: graph.run_write(
                tx, "admin/delete_scope_batch", scope=name, limit=_DELETE_BATCH
            )
        )
        if result.rows[0]["deleted"] == 0:
            break
    graph.schema("scope/drop_paragraph_vector_index", indexName=DEFAULT_SPACE.scope_index(name))


@pytest.fixture(scope="session")
def embedder(settings: Settings) -> SentenceTransformerEmbedder:
    return SentenceTransformerEmbedder(settings.embedding)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Debian's chromium for the inspector's browser tests, one per test module."""
    with launch_chromium() as launched:
        yield launched
