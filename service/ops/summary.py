"""GET /v1/ops/summary: answers by status over time, abstention and conflict rates, latency
percentiles per stage, the most and never cited documents, tickets opened and closed."""

from __future__ import annotations

from typing import Any

import msgspec

from service.db.graph import Graph
from service.ops.latency import percentile_ms
from service.ops.window import Window
from service.records.model import iso_time
from service.settings import OpsSettings

__all__ = ["Summary", "read_summary"]


class StatusBucket(msgspec.Struct, frozen=True, rename="camel"):
    start: str
    answers: int
    by_status: dict[str, int]


class StageLatency(msgspec.Struct, frozen=True, rename="camel"):
    stage: str
    answers: int
    p50: float | None
    p95: float | None
    mean: float | None


class CitedDocument(msgspec.Struct, frozen=True, rename="camel"):
    scope: str
    document_id: str
    title: str | None
    citations: int | None = None


class Totals(msgspec.Struct, frozen=True, rename="camel"):
    answers: int
    by_status: dict[str, int]
    abstention_rate: float | None
    conflict_rate: float | None


class Summary(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    scope: str | None
    since: str
    until: str
    bucket: str
    buckets: list[StatusBucket]
    totals: Totals
    latency_ms: list[StageLatency]
    top_cited_documents: list[CitedDocument]
    never_cited_documents: list[CitedDocument]
    tickets: dict[str, int]


def read_summary(
    graph: Graph, window: Window, settings: OpsSettings, *, scope: str | None,
    scopes: list[str] | None, limit: int,
) -> Summary:  # fmt: skip
    """`scopes`: the key's readable scopes (None: all); `scope`: one of them, or None."""
    where = {"scopes": scopes, "scope": scope}
    hours = {"sinceMs": window.since_ms, "untilMs": window.until_ms, **where}
    first_day, end_day = window.days
    days = {"sinceMs": first_day, "untilMs": end_day, **where}
    rows = graph.read("ops/answers_by_bucket", bucketMs=window.bucket_ms, **hours)
    by_start: dict[int, dict[str, int]] = {start: {} for start in window.starts}
    for row in rows:
        by_start.setdefault(int(row["startMs"]), {})[row["status"]] = int(row["answers"])
    buckets = [StatusBucket(iso_time(start), sum(counts.values()), counts)
               for start, counts in sorted(by_start.items())]  # fmt: skip
    totals: dict[str, int] = {}
    for bucket in buckets:
        for status, answers in bucket.by_status.items():
            totals[status] = totals.get(status, 0) + answers
    answered = sum(totals.values())
    [flow] = graph.read("ops/ticket_flow", sinceIso=iso_time(window.since_ms),
                        untilIso=iso_time(window.until_ms), **hours)  # fmt: skip
    return Summary(
        scope=scope, **window.bounds(), bucket=window.bucket, buckets=buckets,
        totals=Totals(answered, dict(sorted(totals.items())),
                      _rate(totals.get("abstained", 0), answered),
                      _rate(totals.get("conflict", 0), answered)),
        latency_ms=[_latency(row) for row in graph.read("ops/latency_by_stage", **days)],
        top_cited_documents=[_document(row) for row in
                             graph.read("ops/top_cited", limit=limit, **days)],
        never_cited_documents=[_document(row) for row in
                               graph.read("ops/never_cited", limit=limit,
                                          scan=settings.document_scan, **days)],
        tickets={"opened": int(flow["opened"]), "closed": int(flow["closed"])},
    )  # fmt: skip


def _rate(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def _latency(row: dict[str, Any]) -> StageLatency:
    counts = [int(c) for c in row["counts"]]
    answers = int(row["answers"])
    mean = round(float(row["sumMs"]) / answers, 2) if answers else None
    return StageLatency(str(row["stage"]), answers, percentile_ms(counts, 0.5),
                        percentile_ms(counts, 0.95), mean)  # fmt: skip


def _document(row: dict[str, Any]) -> CitedDocument:
    citations = row.get("citations")
    return CitedDocument(str(row["scope"]), str(row["documentId"]), row.get("title"),
                         None if citations is None else int(citations))  # fmt: skip
