"""GET /v1/ops/failures: failed requests of the answer path (5xx and timeouts) by time bucket,
by stage and error type, and the newest ones (service/records/failures.py writes them)."""

from __future__ import annotations

import msgspec

from service.db.graph import Graph
from service.ops.window import Window
from service.records.model import iso_time
from service.settings import OpsSettings

__all__ = ["FailureReport", "read_failures"]


class FailureBucket(msgspec.Struct, frozen=True, rename="camel"):
    start: str
    failures: int


class StageFailures(msgspec.Struct, frozen=True, rename="camel"):
    stage: str
    error_type: str
    failures: int
    last_at: str


class RecentFailure(msgspec.Struct, frozen=True, rename="camel"):
    trace_id: str
    scope: str
    stage: str
    error_type: str
    status: int
    created_at: str


class FailureReport(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    scope: str | None
    since: str
    until: str
    bucket: str
    buckets: list[FailureBucket]
    by_stage: list[StageFailures]
    recent: list[RecentFailure]


def read_failures(
    graph: Graph, window: Window, settings: OpsSettings, *, scope: str | None,
    scopes: list[str] | None,
) -> FailureReport:  # fmt: skip
    where = {"sinceMs": window.since_ms, "untilMs": window.until_ms, "scopes": scopes,
             "scope": scope}  # fmt: skip
    counts = {start: 0 for start in window.starts}
    for row in graph.read("ops/failures_by_bucket", bucketMs=window.bucket_ms, **where):
        counts[int(row["startMs"])] = int(row["failures"])
    return FailureReport(
        scope=scope, **window.bounds(), bucket=window.bucket,
        buckets=[FailureBucket(iso_time(s), n) for s, n in sorted(counts.items())],
        by_stage=[
            StageFailures(str(r["stage"]), str(r["errorType"]), int(r["failures"]),
                          iso_time(int(r["lastAtMs"])))
            for r in graph.read("ops/failures_by_stage", **where)
        ],
        recent=[
            RecentFailure(str(r["traceId"]), str(r["scope"]), str(r["stage"]),
                          str(r["errorType"]), int(r["status"]), str(r["createdAt"]))
            for r in graph.read("ops/recent_failures", limit=settings.recent_failures,
                                scan=settings.failure_scan, **where)
        ],
    )  # fmt: skip
