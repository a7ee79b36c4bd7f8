"""A failed request of the answer path as a record: what is kept of it (no question text, no
exception text; the trace id leads to the service log) and its write (cypher/ops/)."""

from __future__ import annotations

from typing import Any

import msgspec

from service.db.graph import Graph
from service.records.model import iso_time
from service.records.rollup import HOUR_MS

__all__ = ["FailureRecord", "store_failure"]


class FailureRecord(msgspec.Struct, frozen=True, kw_only=True):
    trace_id: str
    scope: str  # the scope asked, or "" when the question named none and several were searched
    stage: str  # the kgs module where the error surfaced ("pipeline.retrieval"), or "answer-pool"
    error_type: str  # "neo4j-timeout", "neo4j-unavailable", "neo4j-error", "worker-stopped", ...
    status: int  # the HTTP status answered
    created_at_ms: int
    key_name: str
    client: str  # "rest" or "mcp"

    def properties(self) -> dict[str, Any]:
        return {
            "traceId": self.trace_id, "scope": self.scope, "stage": self.stage,
            "errorType": self.error_type, "status": self.status,
            "createdAtMs": self.created_at_ms, "createdAt": iso_time(self.created_at_ms),
            "keyName": self.key_name, "client": self.client,
        }  # fmt: skip


def store_failure(graph: Graph, failure: FailureRecord) -> None:
    graph.write("ops/store_failure", failure=failure.properties(),
                hourMs=failure.created_at_ms - failure.created_at_ms % HOUR_MS)  # fmt: skip
