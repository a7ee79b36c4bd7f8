"""Answer records in Neo4j: store one, read one back, list a page, apply retention
(cypher/records/)."""

from __future__ import annotations

import time
from typing import Any

import msgspec
from neo4j import ManagedTransaction

from service.db.graph import Graph
from service.records.model import AnswerRecord, record_response
from service.records.rollup import LATENCY_BOUNDS_MS, answer_counts
from service.settings import OpsSettings, RecordSettings

__all__ = [
    "ListedRecord",
    "RecordDetail",
    "RecordFilter",
    "RecordPage",
    "RecordStats",
    "StoredRecord",
    "apply_ops_retention",
    "apply_retention",
    "list_records",
    "read_detail",
    "read_record",
    "record_stats",
    "store_record",
]

_NEWEST = 2**53 - 1  # a cursor time after every record


class StoredRecord(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    """A record read back: the shape of GET /v1/traces/{traceId} (as an in-memory trace), plus
    whether a document it rests on changed since."""

    trace_id: str
    scope: str
    scopes: tuple[str, ...] = ()
    query: str
    status: str
    created_at: str
    stale: bool = False
    trace: dict[str, Any]


class RecordDetail(msgspec.Struct, frozen=True, kw_only=True):
    """Everything stored of one record (export and replay)."""

    stored: StoredRecord
    response: dict[str, Any]  # as the API returned it, trace included
    request: dict[str, Any]  # scope, depth, topK as asked
    key_name: str
    replay_id: str
    stale_reason: str | None
    documents: tuple[dict[str, Any], ...]  # version and content hash then and now


class ListedRecord(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    trace_id: str
    scope: str
    query: str
    status: str
    created_at: str
    created_at_ms: int
    key_name: str
    client: str  # "rest" or "mcp"
    stale: bool
    stale_reason: str | None = None
    evidence_status: dict[str, Any]


class RecordFilter(msgspec.Struct, frozen=True, kw_only=True):
    scopes: tuple[str, ...] | None  # the readable scopes (None: all)
    scope: str | None = None
    status: str | None = None
    since_ms: int | None = None
    q: str | None = None  # a case-insensitive part of the question
    stale: bool | None = None


def store_record(graph: Graph, record: AnswerRecord, max_wordings: int = 5) -> None:
    """The record and, in the same transaction when it is new, its counts in the operations
    rollups (service/records/rollup.py); `max_wordings`: wordings kept per gap group and day."""

    def work(tx: ManagedTransaction) -> None:
        [row] = graph.run_write(
            tx, "records/store_answer", record=record.properties(),
            cited=[msgspec.to_builtins(s) for s in record.cited],
            used=[msgspec.to_builtins(s) for s in record.used],
        ).rows  # fmt: skip
        if row["fresh"]:
            graph.run_write(tx, "ops/count_answers", answers=[answer_counts(record)],
                            bins=len(LATENCY_BOUNDS_MS) + 1, maxWordings=max_wordings)  # fmt: skip

    graph.in_write_transaction(work, label="records/store_answer")


def read_record(graph: Graph, record_id: str) -> StoredRecord | None:
    detail = read_detail(graph, record_id)
    return detail.stored if detail else None


def read_detail(graph: Graph, record_id: str) -> RecordDetail | None:
    rows = graph.read("records/answer_by_id", id=record_id)
    if not rows:
        return None
    row = rows[0]
    response = record_response(bytes(row["response"]))
    stored = StoredRecord(
        trace_id=row["id"], scope=row["scope"], scopes=tuple(row["scopes"] or ()),
        query=row["query"], status=row["status"], created_at=row["createdAt"],
        stale=bool(row["stale"]), trace=response["trace"],
    )  # fmt: skip
    return RecordDetail(
        stored=stored, response=response, request=msgspec.json.decode(row["request"] or "{}"),
        key_name=row["keyName"], replay_id=row["replayId"], stale_reason=row["staleReason"],
        documents=tuple(row["documents"] or ()),
    )  # fmt: skip


class RecordPage(msgspec.Struct, frozen=True, kw_only=True):
    items: list[ListedRecord]
    # Where the next page starts (the last record examined or returned); None: no more.
    next_after: tuple[int, str] | None


def list_records(
    graph: Graph,
    where: RecordFilter,
    *,
    after: tuple[int, str] | None,
    limit: int,
    scan: int,
) -> RecordPage:
    """A page, newest first, after the cursor (a record's time and id), examining at most `scan`
    records: a page may hold fewer than `limit` items and still have a next one."""
    before_ms, before_id = after if after is not None else (_NEWEST, "")
    [row] = graph.read(
        "records/list_answers", scopes=_list(where.scopes), scope=where.scope,
        status=where.status, sinceMs=where.since_ms, q=where.q.lower() if where.q else None,
        stale=where.stale, beforeMs=before_ms, beforeId=before_id, limit=limit, scan=scan,
    )  # fmt: skip
    items = [_listed(r) for r in row["items"]]
    more = len(items) == limit or int(row["scanned"]) == scan
    last = (int(row["lastMs"]), str(row["lastId"])) if more and row["lastId"] else None
    return RecordPage(items=items, next_after=last)


def _listed(row: dict[str, Any]) -> ListedRecord:
    return ListedRecord(
        trace_id=row["id"], scope=row["scope"], query=row["query"], status=row["status"],
        created_at=row["createdAt"], created_at_ms=int(row["createdAtMs"]),
        key_name=row["keyName"], client=row["client"], stale=bool(row["stale"]),
        stale_reason=row["staleReason"],
        evidence_status=msgspec.json.decode(row["evidenceStatus"] or "{}"),
    )  # fmt: skip


class RecordStats(msgspec.Struct, frozen=True, kw_only=True):
    scope: str
    status: str
    records: int
    stale: int
    bytes: int


def record_stats(graph: Graph, scopes: int) -> list[RecordStats]:
    """Records by scope and status; beyond the `scopes` scopes with most records, "other"."""
    rows = graph.read("records/record_stats")
    totals: dict[str, int] = {}
    for row in rows:
        totals[row["scope"]] = totals.get(row["scope"], 0) + int(row["records"])
    kept = set(sorted(totals, key=lambda s: (-totals[s], s))[:scopes])
    merged: dict[tuple[str, str], list[int]] = {}
    for row in rows:
        key = (row["scope"] if row["scope"] in kept else "other", str(row["status"]))
        sums = merged.setdefault(key, [0, 0, 0])
        for i, field in enumerate(("records", "stale", "bytes")):
            sums[i] += int(row[field] or 0)
    return [
        RecordStats(scope=scope, status=status, records=n, stale=stale, bytes=size)
        for (scope, status), (n, stale, size) in sorted(merged.items())
    ]


def apply_retention(graph: Graph, settings: RecordSettings, now_ms: int | None = None) -> int:
    """Delete records older than max_age_s, then those beyond the newest max_count, a batch
    per transaction; the number deleted."""
    now_ms = int(time.time() * 1000) if now_ms is None else now_ms
    before = now_ms - int(settings.max_age_s * 1000)
    batch = settings.retention_batch
    return _delete_in_batches(graph, "records/expire_answers", batch, before=before) + (
        _delete_in_batches(graph, "records/trim_answers", batch, keep=settings.max_count)
    )


def apply_ops_retention(
    graph: Graph, settings: OpsSettings, batch: int, now_ms: int | None = None
) -> int:
    """Delete failure records older than failure_max_age_s and rollups older than
    rollup_max_age_s, a batch per transaction; the number of nodes deleted."""
    now_ms = int(time.time() * 1000) if now_ms is None else now_ms
    return sum(
        _delete_in_batches(graph, name, batch, beforeMs=now_ms - int(max_age_s * 1000))
        for name, max_age_s in (("ops/expire_failures", settings.failure_max_age_s),
                                ("ops/expire_rollups", settings.rollup_max_age_s))
    )  # fmt: skip


def _delete_in_batches(graph: Graph, name: str, batch: int, **params: Any) -> int:
    """Run a deleting statement until a batch deletes fewer than `batch`; how many went."""
    deleted = 0
    while True:
        [row] = graph.write(name, batch=batch, **params).rows
        deleted += int(row["deleted"])
        if int(row["deleted"]) < batch:
            return deleted


def _list(values: tuple[str, ...] | None) -> list[str] | None:
    return None if values is None else list(values)
