"""Liveness and readiness."""

from __future__ import annotations

import msgspec
from litestar import get
from litestar.plugins.problem_details import ProblemDetailsException
from neo4j.exceptions import DriverError, Neo4jError

from service.api.state import AppResources
from service.db.schema import index_report

__all__ = ["health", "ready"]


class Health(msgspec.Struct, frozen=True):
    status: str


class Readiness(msgspec.Struct, frozen=True):
    status: str
    neo4j: str
    indexes: dict[str, str]


@get("/health", sync_to_thread=False, tags=["operations"])
def health() -> Health:
    """Liveness: the process answers; the database is not consulted."""
    return Health(status="ok")


@get("/ready", sync_to_thread=True, tags=["operations"])
def ready(resources: AppResources) -> Readiness:
    """Readiness: Neo4j answers and every kgs index is ONLINE; 503 otherwise."""
    graph = resources.graph
    if graph is None:
        raise _not_ready("Neo4j connection is not open")
    try:
        graph.read("admin/ping")
        states = {s.name: s.state for s in index_report(graph)}
    except (DriverError, Neo4jError) as error:
        raise _not_ready(f"Neo4j is unreachable: {error}") from error
    if any(state != "ONLINE" for state in states.values()):
        raise _not_ready("indexes are not ONLINE", indexes=states)
    return Readiness(status="ready", neo4j=graph.driver.get_server_info().agent, indexes=states)


def _not_ready(detail: str, **extra: object) -> ProblemDetailsException:
    return ProblemDetailsException(
        status_code=503, title="Service not ready", detail=detail, extra=extra or None
    )
