"""Prometheus metrics at /metrics: requests and latencies per route (Litestar's Prometheus
middleware, grouped by route template), plus what the service itself counts: time per pipeline
stage, answers by status (abstentions included), degraded answers, answer records written,
dropped or failed, the stored records by scope and status (stale ones, their bytes), Neo4j
errors, rate-limit refusals, and escalation tickets by scope and status with the
escalation events (previews, confirmations, cancellations, gaps found answerable, resolutions),
full-text reviews and their questions by status, the paragraph text caches' bytes and hit
counts, and each answer worker's resident memory and text caches."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Generic, TypeVar

from litestar import MediaType, Response, get
from litestar.plugins.prometheus import PrometheusConfig
from neo4j.exceptions import DriverError, Neo4jError
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, Counter, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from service.api.process import WorkerReport
from service.escalations import TicketCount
from service.records import RecordStats
from service.text.text_cache import CacheStats, cache_stats

__all__ = [
    "PROCESS_CACHE_GAUGES",
    "RECORD_GAUGES",
    "TICKET_GAUGES",
    "WORKER_GAUGES",
    "count_escalation",
    "count_neo4j_error",
    "count_rate_limited",
    "count_record",
    "count_review",
    "metrics",
    "prometheus_config",
    "record_answer",
]

_STAGE_BUCKETS_S = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

# Module-level: prometheus_client keeps one registry per process; every app instance shares it.
PIPELINE_STAGE_SECONDS = Histogram(
    "kgs_pipeline_stage_seconds", "Time spent in each answer pipeline stage", ["stage"],
    buckets=_STAGE_BUCKETS_S,
)  # fmt: skip
ANSWERS = Counter("kgs_answers_total", "Answers by status", ["status"])
ABSTENTIONS = Counter("kgs_abstentions_total", "Answers declined for lack of evidence")
DEGRADED = Counter(
    "kgs_degraded_answers_total", "Answers with a degradation state other than none",
    ["degradation"],
)  # fmt: skip
NEO4J_ERRORS = Counter("kgs_neo4j_errors_total", "Requests that failed on Neo4j", ["kind"])
# key: the configured key name, or "-" for a client identified by its address (unbounded values
# stay out of the labels).
RECORDS = Counter(
    "kgs_answer_records_total",
    "Answer and failure records by outcome: written, dropped, failed, held (a failure record kept"
    " in memory while Neo4j is away)",
    ["outcome"],
)
# preview, confirmed, cancelled, answerable (a re-check closed the gap), resolved
ESCALATIONS = Counter("kgs_escalations_total", "Escalation events by kind", ["event"])
REVIEWS = Counter("kgs_reviews_total", "Full-text reviews by overall status and method",
                  ["status", "method"])  # fmt: skip
REVIEW_QUESTIONS = Counter("kgs_review_questions_total",
                           "Questions of full-text reviews by status and method",
                           ["status", "method"])  # fmt: skip
RATE_LIMITED = Counter(
    "kgs_rate_limited_total", "Requests refused 429 by the per-key rate limit", ["key"]
)


Row = TypeVar("Row")


class CachedRead(Generic[Row]):
    """Rows read from Neo4j at scrape time, at most once per `interval_s` (the last rows are
    served in between, none while Neo4j has not answered yet)."""

    def __init__(self) -> None:
        self._read: Callable[[], list[Row]] | None = None
        self._interval_s = 60.0
        self._cached: tuple[float, list[Row]] | None = None
        self._lock = threading.Lock()

    def watch(self, read: Callable[[], list[Row]] | None, interval_s: float) -> None:
        with self._lock:
            self._read, self._interval_s, self._cached = read, interval_s, None

    def rows(self) -> list[Row]:
        with self._lock:
            now = time.monotonic()
            if self._read is None:
                return []
            if self._cached is None or now - self._cached[0] >= self._interval_s:
                try:
                    self._cached = (now, self._read())
                except (DriverError, Neo4jError):
                    return self._cached[1] if self._cached else []
            return self._cached[1]


class RecordGauges(CachedRead[RecordStats], Collector):
    """Stored answer records by scope and status, stale ones, and their bytes."""

    def collect(self) -> Iterator[Metric]:
        families = (
            GaugeMetricFamily("kgs_answer_records_stored", "Stored answer records",
                              labels=["scope", "status"]),
            GaugeMetricFamily("kgs_answer_records_stored_stale",
                              "Stored answer records whose documents changed since",
                              labels=["scope", "status"]),
            GaugeMetricFamily("kgs_answer_records_stored_bytes",
                              "Bytes of the stored (compressed) responses",
                              labels=["scope", "status"]),
        )  # fmt: skip
        for row in self.rows():
            for family, value in zip(families, (row.records, row.stale, row.bytes), strict=True):
                family.add_metric([row.scope, row.status], value)
        yield from families


class TicketGauges(CachedRead[TicketCount], Collector):
    """Escalation tickets by scope and status (open ones are the knowledge gaps not closed)."""

    def collect(self) -> Iterator[Metric]:
        family = GaugeMetricFamily("kgs_escalation_tickets", "Escalation tickets",
                                   labels=["scope", "status"])  # fmt: skip
        for row in self.rows():
            family.add_metric([row.scope, row.status], row.tickets)
        yield family


def _cache_families(prefix: str, what: str, labels: list[str]) -> tuple[Metric, ...]:
    return (
        GaugeMetricFamily(f"{prefix}_bytes", f"Estimated bytes held{what}", labels=labels),
        GaugeMetricFamily(f"{prefix}_budget_bytes", f"Byte budget{what}", labels=labels),
        GaugeMetricFamily(f"{prefix}_entries", f"Entries held{what}", labels=labels),
        CounterMetricFamily(f"{prefix}_hits", f"Lookups answered{what}", labels=labels),
        CounterMetricFamily(f"{prefix}_misses", f"Lookups computed{what}", labels=labels),
    )


def _add_cache(families: tuple[Metric, ...], labels: list[str], stats: CacheStats) -> None:
    values = (stats.bytes, stats.budget_bytes, stats.entries, stats.hits, stats.misses)
    for family, value in zip(families, values, strict=True):
        family.add_metric(labels, value)  # type: ignore[attr-defined]


class TextCacheGauges(Collector):
    """The paragraph text caches of this process (service/text/text_cache.py): bytes held
    against the budget, entries, hits and misses, by kind."""

    def collect(self) -> Iterator[Metric]:
        families = _cache_families("kgs_text_cache", "", ["kind"])
        for stats in cache_stats():
            _add_cache(families, [stats.kind], stats)
        yield from families


class ProcessCacheGauges(Collector):
    """The service process's other caches, each bounded in bytes: question vectors, traces held
    for GET /v1/traces, knowledge point names (service/api/state.py process_caches)."""

    def __init__(self) -> None:
        self._source: Callable[[], list[CacheStats]] | None = None

    def watch(self, source: Callable[[], list[CacheStats]] | None) -> None:
        self._source = source

    def collect(self) -> Iterator[Metric]:
        families = _cache_families("kgs_cache", "", ["cache"])
        for stats in self._source() if self._source is not None else []:
            _add_cache(families, [stats.kind], stats)
        yield from families


class WorkerGauges(Collector):
    """The answer workers as each last reported itself (service/api/answer_pool.py): resident
    memory and text caches, by worker slot. A worker's process has no /metrics of its own."""

    def __init__(self) -> None:
        self._source: Callable[[], list[tuple[int, WorkerReport]]] | None = None

    def watch(self, source: Callable[[], list[tuple[int, WorkerReport]]] | None) -> None:
        self._source = source

    def collect(self) -> Iterator[Metric]:
        reports = self._source() if self._source is not None else []
        if not reports:
            return
        resident = GaugeMetricFamily(
            "kgs_answer_worker_resident_bytes",
            "Resident memory of the answer worker",
            labels=["worker"],
        )
        families = _cache_families("kgs_answer_worker_text_cache", " in the answer worker",
                                   ["worker", "kind"])  # fmt: skip
        for slot, report in reports:
            resident.add_metric([str(slot)], report.rss_bytes)
            for stats in report.caches:
                _add_cache(families, [str(slot), stats.kind], stats)
        yield resident
        yield from families


RECORD_GAUGES = RecordGauges()
REGISTRY.register(RECORD_GAUGES)
REGISTRY.register(TextCacheGauges())
PROCESS_CACHE_GAUGES = ProcessCacheGauges()
REGISTRY.register(PROCESS_CACHE_GAUGES)
WORKER_GAUGES = WorkerGauges()
REGISTRY.register(WORKER_GAUGES)
TICKET_GAUGES = TicketGauges()
REGISTRY.register(TICKET_GAUGES)


def prometheus_config() -> PrometheusConfig:
    return PrometheusConfig(
        app_name="kgs", prefix="kgs", group_path=True, exclude=["^/metrics", "^/schema"]
    )


@get("/metrics", media_type=MediaType.TEXT, sync_to_thread=False, tags=["operations"])
def metrics() -> Response[bytes]:
    """Prometheus text exposition of every metric of this process."""
    return Response(generate_latest(REGISTRY), media_type=CONTENT_TYPE_LATEST)


def record_answer(response: Mapping[str, Any]) -> None:
    status = str(response.get("status", "unknown"))
    ANSWERS.labels(status=status).inc()
    if status == "abstained":
        ABSTENTIONS.inc()
    trace = response.get("trace") or {}
    review = trace.get("ragSufficiencyReview") or {}
    degradation = review.get("degradation")
    if degradation and degradation != "none":
        DEGRADED.labels(degradation=str(degradation)).inc()
    for stage, elapsed_ms in (trace.get("timingsMs") or {}).items():
        if isinstance(elapsed_ms, int | float):
            PIPELINE_STAGE_SECONDS.labels(stage=str(stage)).observe(elapsed_ms / 1000)


def count_neo4j_error(kind: str) -> None:
    NEO4J_ERRORS.labels(kind=kind).inc()


def count_record(outcome: str) -> None:
    RECORDS.labels(outcome=outcome).inc()


def count_escalation(event: str) -> None:
    ESCALATIONS.labels(event=event).inc()


def count_review(status: str, method: str, questions: list[tuple[str, str]]) -> None:
    """One full-text review: its overall status and method, and each question's."""
    REVIEWS.labels(status=status, method=method).inc()
    for question_status, question_method in questions:
        REVIEW_QUESTIONS.labels(status=question_status, method=question_method).inc()


def count_rate_limited(key: str) -> None:
    RATE_LIMITED.labels(key=key).inc()
