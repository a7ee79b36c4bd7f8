"""The fault suite uses the integration fixtures (the shared test Neo4j, unique scopes)."""

from tests.integration.conftest import (  # noqa: F401 (pytest finds fixtures by name)
    cli_env,
    connection,
    database,
    embedder,
    graph,
    scope,
    settings,
)
