"""POST /v1/reviews: a full-text review of whole documents (docs/reviews.md).

The answer path starts from retrieval; a review binds the documents the caller names (all of
one readable scope), their complete head text, and answers each question against exactly that
text, every finding an exact quote of it. The bound text is counted in UTF-16 code units and
refused (413), never cut, over KGS_REVIEW_MAX_UTF16_UNITS. Reviews are traced (GET
/v1/traces/{reviewId}) and recorded like answers, as records of kind `review`, which replay
refuses (409).
"""

from __future__ import annotations

import time
from functools import partial
from typing import Annotated, Any, Literal

import anyio
import msgspec
from litestar import Controller, post
from litestar.params import Body, Parameter

from service.api.auth import Grant
from service.api.errors import problem, v1_problems
from service.api.metrics import count_review
from service.api.queries import CLOSED_OBJECT
from service.api.scopes import SCOPE_PATTERN, readable_scope
from service.api.state import AppResources
from service.api.trace_store import StoredTrace
from service.db.graph import Graph
from service.review import (
    ReviewTooLarge,
    bind,
    check_limit,
    check_request,
    read_documents,
    record_response,
    review_client,
    review_response,
    run_review,
)

__all__ = ["ReviewController", "ReviewRequest", "ReviewResponse"]

DocumentReference = Annotated[str, msgspec.Meta(
    description="a document id (d_...) or its path as stored (scope/dir/file.md)",
)]  # fmt: skip
ReviewScope = Annotated[str, msgspec.Meta(
    pattern=SCOPE_PATTERN,
    description="the scope every document must be in; omitted: the documents' own (one) scope",
)]  # fmt: skip


class ReviewRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True,
                    rename="camel"):  # fmt: skip
    scope: ReviewScope | None = None
    # At most KGS_REVIEW_MAX_DOCUMENTS, all of one scope the key may read.
    documents: list[DocumentReference]
    # At most KGS_REVIEW_MAX_QUESTIONS, each at most KGS_API_MAX_QUERY_CHARS.
    questions: list[str]


class ReviewedDocument(msgspec.Struct, kw_only=True, rename="camel"):
    document_id: str
    path: str
    version: int  # the head version bound (GET /v1/documents/{id}/source?version= shows it)
    utf16_units: int  # of its exact source


class ReviewFinding(msgspec.Struct, kw_only=True, rename="camel"):
    paragraph_id: str  # a paragraph this review bound
    document_id: str
    path: str
    start_offset: int  # code points: the source's [startOffset:endOffset] == quote
    end_offset: int
    quote: str


class ReviewResult(msgspec.Struct, kw_only=True, rename="camel"):
    question: str
    status: Literal["ANSWERED", "PARTIAL", "NOT_FOUND"]
    findings: list[ReviewFinding]  # none when NOT_FOUND
    missing: list[str]  # the question's own terms (or needs) the findings do not cover
    method: Literal["deterministic", "llm"]


class ReviewResponse(msgspec.Struct, kw_only=True, rename="camel", omit_defaults=True):
    review_id: str  # the trace id: X-Trace-Id, GET /v1/traces/{reviewId}, its answer record
    scope: str
    documents: list[ReviewedDocument]
    bound_utf16_units: int
    limit_utf16_units: int
    results: list[ReviewResult]  # one per question, in order
    trace: dict[str, Any] | None = None


class ReviewController(Controller):
    path = "/reviews"
    tags = ["reviews"]  # noqa: RUF012

    @post(status_code=200, responses=v1_problems(404, 409, 413, 422))
    async def review(
        self,
        resources: AppResources,
        grant: Grant,
        data: Annotated[ReviewRequest, Body(schema_extra=CLOSED_OBJECT)],
        trace: Annotated[bool, Parameter(description="include the full trace")] = True,
    ) -> ReviewResponse:
        """Bind whole documents (their complete head text) and answer each question against
        exactly that text, with exact quotes. 413 when the text is over the limit (never cut);
        422 when the documents are not all of one scope."""
        settings = resources.settings
        check_request(data.documents, data.questions, settings.review,
                      settings.api.max_query_chars)  # fmt: skip
        scope = readable_scope(grant, data.scope) if data.scope is not None else None
        graph = resources.request_graph()
        started = time.perf_counter()
        rows = await anyio.to_thread.run_sync(
            partial(read_documents, graph, data.documents, grant.readable())
        )
        binding = bind(rows, data.documents, scope)
        try:
            check_limit(binding, settings.review.max_utf16_units)
        except ReviewTooLarge as error:
            raise problem(
                413, str(error), boundUtf16Units=error.units, limitUtf16Units=error.limit,
                overByUtf16Units=error.over_by,
                documents=[{"documentId": i, "path": p, "utf16Units": n}
                           for i, p, n in error.documents],
            ) from None  # fmt: skip
        bound_ms = round((time.perf_counter() - started) * 1000, 2)
        client = review_client(settings.llm, settings.review)
        try:
            work = partial(run_review, binding, data.questions, answer=settings.answer,
                           review=settings.review, client=client)  # fmt: skip
            outcome = await anyio.to_thread.run_sync(work, limiter=resources.answer_limiter)
        finally:
            if client is not None:
                client.close()
        response = review_response(
            trace_id=graph.trace_id, binding=binding, questions=data.questions, outcome=outcome,
            limits=_limits(resources), cypher=_cypher(graph),
            timings_ms={"bind": bound_ms,
                        "total": round((time.perf_counter() - started) * 1000, 2)},
        )  # fmt: skip
        _keep(resources, grant, data, response)
        if not trace:
            response = {k: v for k, v in response.items() if k != "trace"}
        return msgspec.convert(response, ReviewResponse)


def _limits(resources: AppResources) -> dict[str, int]:
    review = resources.settings.review
    return {
        "maxUtf16Units": review.max_utf16_units,
        "maxDocuments": review.max_documents,
        "maxQuestions": review.max_questions,
        "maxQuestionChars": resources.settings.api.max_query_chars,
        "maxFindingsPerQuestion": review.max_findings_per_question,
    }


def _cypher(graph: Graph) -> list[dict[str, Any]]:
    return [
        {"statement": c.statement, "parameters": c.parameters, "elapsedMs": c.elapsed_ms,
         "rows": c.rows}
        for c in graph.calls
    ]  # fmt: skip


def _keep(
    resources: AppResources, grant: Grant, data: ReviewRequest, response: dict[str, Any]
) -> None:
    """Count it, keep its trace in memory and hand its record to the writer (not awaited)."""
    review = response["trace"]["review"]
    count_review(review["status"], review["method"],
                 [(r["status"], r["method"]) for r in response["results"]])  # fmt: skip
    now_ms = time.time_ns() // 1_000_000
    scope = response["scope"]
    query = "\n".join(data.questions)
    resources.traces.put(
        StoredTrace(
            trace_id=response["reviewId"], scope=scope, scopes=(scope,), query=query,
            status=review["status"], trace=response["trace"],
            created_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now_ms / 1000)),
        )
    )  # fmt: skip
    if resources.records is not None:
        request = {"kind": "review", "query": query, "scope": data.scope,
                   "documents": list(data.documents),
                   "questions": list(data.questions)}  # fmt: skip
        resources.records.submit(record_response(response), request=request, scopes=(scope,),
                                 key_name=grant.key, created_at_ms=now_ms)  # fmt: skip
