"""GET /v1/traces/{traceId}: the trace of an answer, within the key's scopes; and its Cypher
ready for Neo4j Browser (the evidence inspector's statement list)."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, get
from litestar.params import Parameter

from service.api.auth import Grant
from service.api.errors import not_found, v1_problems
from service.api.state import AppResources
from service.api.trace_store import StoredTrace
from service.pipeline.explain import browser_statements
from service.records import StoredRecord, read_record

__all__ = ["TRACE_ID_PATTERN", "TraceController"]

TRACE_ID_PATTERN = "^t_[0-9a-f]{16}$"


class TraceController(Controller):
    path = "/traces"
    tags = ["traces"]  # noqa: RUF012

    @get("/{trace_id:str}", sync_to_thread=True, responses=v1_problems(404))
    def get_trace(
        self,
        resources: AppResources,
        grant: Grant,
        trace_id: Annotated[str, Parameter(pattern=TRACE_ID_PATTERN)],
    ) -> StoredTrace | StoredRecord:
        """The trace of an answer (same key scopes as the answer's): this process's recent
        ones from memory, any other from its answer record in Neo4j, whichever replica gave
        it and across restarts, until record retention removes it."""
        return _stored(resources, grant, trace_id)

    @get("/{trace_id:str}/cypher", sync_to_thread=True, responses=v1_problems(404))
    def get_cypher(
        self,
        resources: AppResources,
        grant: Grant,
        trace_id: Annotated[str, Parameter(pattern=TRACE_ID_PATTERN)],
    ) -> list[dict[str, Any]]:
        """Every Cypher statement the answer ran, in order, with its parameters and the text to
        paste into Neo4j Browser (`:param` lines, then the statement)."""
        stored = _stored(resources, grant, trace_id)
        graph = resources.request_graph()
        return browser_statements(stored.trace.get("cypher") or [], graph.registry)


def _stored(resources: AppResources, grant: Grant, trace_id: str) -> StoredTrace | StoredRecord:
    stored: StoredTrace | StoredRecord | None = resources.traces.get(trace_id)
    if stored is None and resources.settings.records.enabled:
        stored = read_record(resources.request_graph(), trace_id)
    if stored is None or not all(map(grant.can_read, (stored.scope, *stored.scopes))):
        raise not_found("trace")
    return stored
