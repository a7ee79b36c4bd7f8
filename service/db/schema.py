"""Constraints and indexes from cypher/schema/, applied idempotently and awaited until ONLINE."""

from __future__ import annotations

import time

import msgspec

from service.db.graph import Graph
from service.errors import KgsError

__all__ = ["SchemaError", "apply_schema", "index_report"]

# The indexes kgs creates and depends on (constraints bring their own RANGE indexes).
KGS_INDEXES = frozenset(
    {
        "paragraph_search",
        "knowledge_point_search",
        "paragraph_embedding",
        "document_scope_path",
        "paragraph_scope",
        "knowledge_point_scope_degree",
        "paragraph_document_id",
        "heading_document_id",
        "fact_document_version",
        "fact_scope_key",
        "answer_record_created",
    }
)
_POLL_INTERVAL_S = 0.25


class SchemaError(KgsError, RuntimeError):
    """An index failed to populate or did not come ONLINE in time."""


class IndexState(msgspec.Struct, frozen=True):
    name: str
    type: str
    state: str
    populationPercent: float


def apply_schema(graph: Graph, *, timeout_s: float = 120.0) -> list[IndexState]:
    for name in graph.registry.names("schema/"):
        graph.schema(name)
    deadline = time.monotonic() + timeout_s
    while True:
        states = index_report(graph)
        pending = [s for s in states if s.state != "ONLINE"]
        failed = [s.name for s in pending if s.state == "FAILED"]
        if failed:
            raise SchemaError(f"indexes FAILED: {', '.join(failed)} (see SHOW INDEXES)")
        if not pending:
            return states
        if time.monotonic() > deadline:
            names = ", ".join(f"{s.name} {s.state}" for s in pending)
            raise SchemaError(f"indexes not ONLINE after {timeout_s:.0f} s: {names}")
        time.sleep(_POLL_INTERVAL_S)


def index_report(graph: Graph) -> list[IndexState]:
    """The kgs indexes and their states; a missing one is reported as MISSING."""
    rows = {r["name"]: r for r in graph.read("admin/index_states")}
    return [
        IndexState(
            name=name,
            type=str(rows[name]["type"]) if name in rows else "?",
            state=str(rows[name]["state"]) if name in rows else "MISSING",
            populationPercent=float(rows[name]["populationPercent"] or 0) if name in rows else 0.0,
        )
        for name in sorted(KGS_INDEXES)
    ]
