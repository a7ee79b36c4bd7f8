"""OpenTelemetry spans (docs/operations.md, "OpenTelemetry"), built with the OpenTelemetry SDK.

With OTEL_EXPORTER_OTLP_ENDPOINT set, Litestar's instrumentation makes a span of every request,
and each answer adds under it a `kgs.answer` span with one child span per pipeline stage. The
stages run in an answer worker process, which exports nothing: their spans are written here,
in the service process, from the answer's own trace (its stage timings, in the order the stages
ran, and its Cypher statements by stage), so one collector sees one tree per request with no
context crossing processes. Attributes: the scope, status, evidence, citation count, client and
trace id, and the names of the Cypher statements of each stage; never the question's text
unless KGS_OTEL_INCLUDE_TEXT is on. Without an endpoint there is no tracer and nothing runs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from opentelemetry import trace as otel
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

from service.settings import TelemetrySettings

__all__ = ["STATEMENT_STAGES", "answer_spans", "otlp_tracer_provider", "stage_of"]

# Statement folders (cypher/<folder>/) and the pipeline stage they belong to; others are named
# by their folder.
STATEMENT_STAGES = {"retrieval": "retrieval", "graph": "graphContext", "evidence": "augmentation"}
_MS_NS = 1_000_000


def stage_of(statement: str) -> str:
    folder = statement.split("/", 1)[0]
    return STATEMENT_STAGES.get(folder, folder)


def otlp_tracer_provider(settings: TelemetrySettings) -> TracerProvider | None:
    """A provider exporting over OTLP/HTTP in batches (the exporter reads the endpoint and the
    SDK's other OTEL_* variables itself), or None without an endpoint."""
    if not settings.endpoint:
        return None
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    provider = TracerProvider(resource=Resource.create({"service.name": settings.service_name}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    return provider


def answer_spans(
    tracer: otel.Tracer,
    response: Mapping[str, Any],
    *,
    started_ns: int,
    ended_ns: int,
    client: str,
    question: str | None,
) -> None:
    """The answer's span, a child of the current (request) span, and its stages' spans laid
    end to end from `started_ns` by their measured durations. `question`: only when the
    settings let its text out."""
    trace = response.get("trace") or {}
    status = response.get("evidenceStatus") or {}
    calls: Sequence[Mapping[str, Any]] = trace.get("cypher") or ()
    names = [str(c.get("statement", "")) for c in calls]
    attributes: dict[str, Any] = {
        "kgs.scope": str((trace.get("plan") or {}).get("scope", "")),
        "kgs.status": str(response.get("status", "")),
        "kgs.evidence": str(status.get("evidence", "")),
        "kgs.citations": len(response.get("citations") or ()),
        "kgs.client": client,
        "kgs.trace_id": str(trace.get("traceId", "")),
        "kgs.cypher.statements": names,
    }
    if question is not None:
        attributes["kgs.question"] = question
    answer = tracer.start_span("kgs.answer", start_time=started_ns, attributes=attributes)
    parent = otel.set_span_in_context(answer)
    cursor = started_ns
    for stage, milliseconds in (trace.get("timingsMs") or {}).items():
        end = min(ended_ns, cursor + int(float(milliseconds) * _MS_NS))
        statements = [n for n in names if stage_of(n) == stage]
        span = tracer.start_span(
            f"kgs.stage.{stage}", context=parent, start_time=cursor,
            attributes={"kgs.stage": stage, "kgs.cypher.statements": statements},
        )  # fmt: skip
        span.end(end_time=end)
        cursor = end
    answer.end(end_time=ended_ns)
