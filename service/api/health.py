"""Liveness and readiness."""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import get
from litestar.plugins.problem_details import ProblemDetailsException
from neo4j.exceptions import DriverError, Neo4jError

from service.api.errors import problem, problem_responses
from service.api.state import AppResources
from service.db.schema import index_report

__all__ = ["health", "ready"]


class Health(msgspec.Struct, frozen=True):
    status: str


class Readiness(msgspec.Struct, frozen=True):
    status: str
    neo4j: str
    indexes: dict[str, str]
    model: str  # loaded | disabled (KGS_EMBEDDINGS=off)


@get("/health", sync_to_thread=False, tags=["operations"])
def health() -> Health:
    """Liveness: the process answers; the database is not consulted."""
    return Health(status="ok")


@get("/ready", sync_to_thread=True, tags=["operations"], responses=problem_responses(503))
def ready(resources: AppResources) -> Readiness:
    """Readiness: Neo4j answers, every kgs index is ONLINE, the embedding model is loaded;
    503 otherwise."""
    graph = resources.graph
    if graph is None:
        raise _not_ready("Neo4j connection is not open")
    try:
        graph.read("admin/ping")
        resources.ensure_schema()
        states = {s.name: s.state for s in index_report(graph)}
        agent = graph.driver.get_server_info().agent
    except (DriverError, Neo4jError) as error:
        raise _not_ready(f"Neo4j is unreachable: {error}") from error
    if any(state != "ONLINE" for state in states.values()):
        raise _not_ready("indexes are not ONLINE", indexes=states)
    if resources.model_state not in ("loaded", "disabled"):
        raise _not_ready(f"embedding model {resources.model_state}", model=resources.model_state)
    return Readiness(status="ready", neo4j=agent, indexes=states, model=resources.model_state)


def _not_ready(detail: str, **extra: Any) -> ProblemDetailsException:
    return problem(503, detail, **extra)
