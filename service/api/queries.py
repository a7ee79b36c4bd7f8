"""POST /v1/query: one question, the answer response of docs/api.md (trace omittable).

A question that names no scope searches the scopes the key may read (every scope in development
mode) and is answered from the one whose evidence is best (service/question/scope_choice.py)."""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import nullcontext
from functools import partial
from typing import Annotated, Any, Literal

import anyio
import msgspec
from litestar import Controller, post
from litestar.params import Body, Parameter

from service.api.answer_pool import AnswerJob, answer_job
from service.api.auth import Grant
from service.api.errors import bad_request, v1_problems
from service.api.failure_records import AnswerFailed, failure_stage, failure_status
from service.api.metrics import record_answer
from service.api.scopes import SCOPE_PATTERN, readable_scope
from service.api.state import AppResources
from service.api.telemetry import answer_spans
from service.api.trace_store import StoredTrace
from service.db.graph import CypherCall
from service.escalations import escalation_offer
from service.question.scope_choice import scopes_to_search
from service.records import FailureRecord

__all__ = [
    "Citation",
    "QueryController",
    "QueryRequest",
    "QueryResponse",
    "check_request",
    "run_answer",
    "to_response",
]

# The request Struct refuses unknown fields; say so in the schema (Litestar does not derive it).
CLOSED_OBJECT = {"additionalProperties": False}
AnswerStatus = Literal["answered", "partial", "conflict", "stale", "abstained"]
QuestionScope = Annotated[str, msgspec.Meta(
    pattern=SCOPE_PATTERN,
    description="the scope to answer from; omitted: the best of the scopes the key may read "
    "(every scope in development mode), at most KGS_API_MAX_QUESTION_SCOPES of them",
)]  # fmt: skip


class QueryRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True,
                   rename="camel"):  # fmt: skip
    query: Annotated[str, msgspec.Meta(min_length=1, description="the question")]
    scope: QuestionScope | None = None
    depth: Literal["normal", "deep"] | None = None
    top_k: Annotated[int, msgspec.Meta(ge=1)] | None = None
    generate: Annotated[bool | None, msgspec.Meta(
        description="a configured OpenAI-compatible provider writes the answer from the evidence "
        "(reviewed like a composed one); omitted: KGS_GENERATION_DEFAULT; no provider: ignored"
    )] = None  # fmt: skip


class Citation(msgspec.Struct, kw_only=True, rename="camel"):
    scope: str  # the cited document's scope (the one the answer came from)
    document_id: str
    # The version quoted: GET /v1/documents/{documentId}?version= shows it until retention
    # releases it (docs/versions.md).
    document_version: int | None = None
    path: str  # relative to the knowledge base root
    heading_path: list[str]
    start_offset: int  # code points: Python's source[startOffset:endOffset] == quote
    end_offset: int
    start_line: int
    end_line: int
    quote: str
    citation_id: str | None = None
    # UTF-16 code units: JavaScript's source.slice(utf16Start, utf16End) === quote. Null for a
    # paragraph ingested before kgs stored them (the next `kgs ingest` rewrites it).
    utf16_start: int | None = None
    utf16_end: int | None = None
    # Where a converted document (PDF, HTML, Word) holds the quote: the PDF page it was printed
    # on, the HTML anchor nearest before it; null for Markdown (docs/formats.md).
    page: int | None = None
    anchor: str | None = None
    place: str = ""  # "manual.pdf, page 12", "faq.html#reset", "guide.md, line 14"


class QueryResponse(msgspec.Struct, kw_only=True, rename="camel", omit_defaults=True):
    answer: str  # the one public message
    status: AnswerStatus
    assistant_blocks: list[dict[str, Any]]
    knowledge_points: list[dict[str, Any]]
    citations: list[Citation]
    structured_answer: dict[str, Any]  # directAnswer == answer
    # Scope, evidence status, citation count, graph status, recovered / degradation, replay id:
    # present with trace=false too (docs/api.md).
    evidence_status: dict[str, Any]
    trace_id: str  # also the X-Trace-Id header; GET /v1/traces/{traceId} while retained
    # Present when the answer left a knowledge gap (abstained, partial, conflict, stale):
    # {reason, preview}; POST the traceId to `preview` to draft an escalation (docs/escalations.md).
    escalation: dict[str, str] | None = None
    trace: dict[str, Any] | None = None


async def check_request(
    resources: AppResources, grant: Grant, request: QueryRequest
) -> tuple[str, ...]:
    """The scopes to search, once the request is within the grant and the limits: the named
    scope, or else the key's scopes that hold documents (its only scope as it is)."""
    limits = resources.settings.api
    if not request.query.strip():
        raise bad_request("query is empty")
    if len(request.query) > limits.max_query_chars:
        raise bad_request(f"query is longer than {limits.max_query_chars} characters")
    if request.top_k is not None and request.top_k > limits.max_top_k:
        raise bad_request(f"topK is larger than {limits.max_top_k}")
    if request.scope is not None or (grant.scopes is not None and len(grant.scopes) == 1):
        return (readable_scope(grant, request.scope),)
    listing = partial(scopes_to_search, resources.request_graph(), grant.readable(),
                      limits.max_question_scopes)  # fmt: skip
    return tuple(await anyio.to_thread.run_sync(listing))


async def run_answer(
    resources: AppResources,
    grant: Grant,
    scopes: tuple[str, ...],
    request: QueryRequest,
    on_call: Callable[[CypherCall], None] | None = None,
    on_sentence: Callable[[str], None] | None = None,
    client: str = "rest",
) -> dict[str, Any]:
    """Answer in a worker process, or a thread of this one (the stream's progress events come
    from the thread), at most max_concurrent_answers at once; keep the trace, and hand the
    record to the writer (the answer does not wait for it)."""
    started_ns = time.time_ns()
    graph = resources.request_graph(on_call)
    job = AnswerJob(query=request.query, scope=scopes[0] if request.scope is not None else None,
                    scopes=scopes, depth=request.depth, top_k=request.top_k,
                    scope_candidates=resources.settings.api.question_scope_candidates,
                    trace_id=graph.trace_id,
                    generate=_generate(resources, request))  # fmt: skip
    try:
        if resources.answer_pool is not None and on_call is None:
            async with resources.answer_limiter or nullcontext():
                response = await resources.answer_pool.answer(job)
        else:
            work = partial(answer_job, graph, resources.embedder, job, resources.settings,
                           on_sentence)  # fmt: skip
            response = await anyio.to_thread.run_sync(work, limiter=resources.answer_limiter)
    except AnswerFailed as failed:
        _keep_failure(resources, grant, job, client, failed.problem.status_code, failed.stage,
                      failed.error_type)  # fmt: skip
        raise failed.problem from None
    except Exception as error:
        status, error_type = failure_status(error)
        _keep_failure(resources, grant, job, client, status, failure_stage(error), error_type)
        raise
    # One id per request: logs, transaction metadata, the header and the stored trace.
    response["trace"]["traceId"] = graph.trace_id
    if resources.settings.escalations.enabled:
        offer = escalation_offer(str(response["status"]))
        if offer is not None:
            response["escalation"] = offer
    record_answer(response)
    if resources.tracer is not None:
        question = request.query if resources.settings.telemetry.include_text else None
        answer_spans(resources.tracer, response, started_ns=started_ns, ended_ns=time.time_ns(),
                     client=client, question=question)  # fmt: skip
    now_ms = time.time_ns() // 1_000_000
    encoded = msgspec.json.encode(response)  # once: sizes the kept trace, fills the record
    resources.traces.put(
        StoredTrace(
            trace_id=graph.trace_id, scope=response["trace"]["plan"]["scope"], scopes=scopes,
            query=request.query, status=str(response["status"]), trace=response["trace"],
            created_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now_ms / 1000)),
        ),
        size=len(encoded),
    )  # fmt: skip
    if resources.records is not None:
        resources.records.submit(response, request=msgspec.to_builtins(request), scopes=scopes,
                                 key_name=grant.key, created_at_ms=now_ms, client=client,
                                 encoded=encoded)  # fmt: skip
    return response


def _keep_failure(
    resources: AppResources, grant: Grant, job: AnswerJob, client: str, status: int, stage: str,
    error_type: str,
) -> None:  # fmt: skip
    """A failure record for a 5xx (a timeout is a 504); a 4xx is the caller's, not ours."""
    if status < 500 or resources.records is None:
        return
    scope = job.scope or (job.scopes[0] if len(job.scopes) == 1 else "")
    resources.records.submit_failure(FailureRecord(
        trace_id=job.trace_id, scope=scope, stage=stage, error_type=error_type, status=status,
        created_at_ms=time.time_ns() // 1_000_000, key_name=grant.key, client=client,
    ))  # fmt: skip


def _generate(resources: AppResources, request: QueryRequest) -> bool:
    """Whether a provider writes this answer: asked for (or the server's default) and configured."""
    asked = resources.settings.generation.default if request.generate is None else request.generate
    return asked and resources.settings.llm.enabled


def to_response(response: dict[str, Any], *, with_trace: bool) -> QueryResponse:
    body = {**response, "traceId": response["trace"]["traceId"]}
    if not with_trace:
        body.pop("trace")
    return msgspec.convert(body, QueryResponse)


class QueryController(Controller):
    path = "/query"
    tags = ["query"]  # noqa: RUF012

    @post(status_code=200, responses=v1_problems(404))
    async def query(
        self,
        resources: AppResources,
        grant: Grant,
        data: Annotated[QueryRequest, Body(schema_extra=CLOSED_OBJECT)],
        trace: Annotated[bool, Parameter(description="include the full trace")] = True,
    ) -> QueryResponse:
        """Answer one question from one scope: the one named, or else the best of the scopes
        the key may read (each citation names its scope; the trace's scopeChoice says why)."""
        scopes = await check_request(resources, grant, data)
        response = await run_answer(resources, grant, scopes, data)
        return to_response(response, with_trace=trace)
