"""GET /v1/traces/{traceId}: the trace of a recent answer, within the key's scopes."""

from __future__ import annotations

from typing import Annotated

from litestar import Controller, get
from litestar.params import Parameter

from service.api.auth import Grant
from service.api.errors import not_found, v1_problems
from service.api.state import AppResources
from service.api.trace_store import StoredTrace

__all__ = ["TraceController"]

TRACE_ID_PATTERN = "^t_[0-9a-f]{16}$"


class TraceController(Controller):
    path = "/traces"
    tags = ["traces"]  # noqa: RUF012

    @get("/{trace_id:str}", sync_to_thread=False, responses=v1_problems(404))
    def get_trace(
        self,
        resources: AppResources,
        grant: Grant,
        trace_id: Annotated[str, Parameter(pattern=TRACE_ID_PATTERN)],
    ) -> StoredTrace:
        """The stored trace of a recent answer (same key scopes as the answer's)."""
        stored = resources.traces.get(trace_id)
        if stored is None or not all(map(grant.can_read, (stored.scope, *stored.scopes))):
            raise not_found("trace")
        return stored
