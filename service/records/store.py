"""Answer records in Neo4j: store one, read one back, apply retention (cypher/records/)."""

from __future__ import annotations

import time
from typing import Any

import msgspec

from service.db.graph import Graph
from service.records.model import AnswerRecord, record_trace
from service.settings import RecordSettings

__all__ = ["StoredRecord", "apply_retention", "read_record", "store_record"]


class StoredRecord(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    """A record as GET /v1/traces/{traceId} returns it (the shape of an in-memory trace, plus
    whether a cited document changed since)."""

    trace_id: str
    scope: str
    scopes: tuple[str, ...] = ()
    query: str
    status: str
    created_at: str
    stale: bool = False
    trace: dict[str, Any]


def store_record(graph: Graph, record: AnswerRecord) -> tuple[int, int]:
    """Write the record and its links; (paragraphs cited, paragraphs used) as linked."""
    [row] = graph.write(
        "records/store_answer",
        record=record.properties(),
        cited=[msgspec.to_builtins(s) for s in record.cited],
        used=[msgspec.to_builtins(s) for s in record.used],
    ).rows
    return int(row["cited"]), int(row["used"])


def read_record(graph: Graph, record_id: str) -> StoredRecord | None:
    rows = graph.read("records/answer_by_id", id=record_id)
    if not rows:
        return None
    row = rows[0]
    return StoredRecord(
        trace_id=row["id"], scope=row["scope"], scopes=tuple(row["scopes"] or ()),
        query=row["query"], status=row["status"], created_at=row["createdAt"],
        stale=bool(row["stale"]), trace=record_trace(bytes(row["trace"])),
    )  # fmt: skip


def apply_retention(graph: Graph, settings: RecordSettings, now_ms: int | None = None) -> int:
    """Delete records older than max_age_s, then those beyond the newest max_count, a batch
    per transaction; the number deleted."""
    now_ms = int(time.time() * 1000) if now_ms is None else now_ms
    before = now_ms - int(settings.max_age_s * 1000)
    deleted = 0
    for name, params in (
        ("records/expire_answers", {"before": before}),
        ("records/trim_answers", {"keep": settings.max_count}),
    ):
        while True:
            [row] = graph.write(name, batch=settings.retention_batch, **params).rows
            deleted += int(row["deleted"])
            if int(row["deleted"]) < settings.retention_batch:
                break
    return deleted
