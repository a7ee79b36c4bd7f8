"""The request's trace id: in the logs, in the response header, in every Neo4j transaction's
metadata, and as the answer's `trace.traceId`, so one id follows a request everywhere."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from service.db.cypher_registry import Statement
from service.db.graph import CypherCall, Graph

__all__ = ["TRACE_HEADER", "TracedGraph", "current_trace_id", "new_trace_id", "trace_id_var"]

TRACE_HEADER = "X-Trace-Id"
trace_id_var: ContextVar[str | None] = ContextVar("kgs_trace_id", default=None)


def new_trace_id() -> str:
    return "t_" + secrets.token_hex(8)


def current_trace_id() -> str:
    return trace_id_var.get() or new_trace_id()


class TracedGraph(Graph):
    """The shared driver and statements, for one request: every transaction carries the trace id
    in its metadata (SHOW TRANSACTIONS, query.log), and `on_call` sees each statement as it
    finishes (the progress events of /v1/query/stream)."""

    def __init__(
        self, base: Graph, trace_id: str, on_call: Callable[[CypherCall], None] | None = None
    ) -> None:
        super().__init__(
            base.driver, base.registry, database=base.database,
            query_timeout_s=base.query_timeout_s, read_retry_s=base.read_retry_s,
        )  # fmt: skip
        self.trace_id = trace_id
        self._on_call = on_call

    def child(self) -> Graph:
        return TracedGraph(self, self.trace_id, self._on_call)

    def _metadata(self, label: str) -> dict[str, str]:
        return {"kgs.statement": label, "kgs.traceId": self.trace_id}

    def _record(self, stmt: Statement, params: Any, started: float, rows: int) -> None:
        super()._record(stmt, params, started, rows)
        if self._on_call is not None:
            self._on_call(self.calls[-1])
