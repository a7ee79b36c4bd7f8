"""Answer records over the API (docs/records.md): GET /v1/answers lists them (the retrieval log),
GET /v1/answers/{traceId}/export returns one as a self-contained bundle, POST
/v1/answers/{traceId}/replay asks its question again and reports what changed. A key sees only
the records of scopes it may read."""

from __future__ import annotations

import calendar
import re
import time
from functools import partial
from typing import Annotated, Any

import anyio
import msgspec
from litestar import Controller, get, post
from litestar.params import Parameter

from service.api.auth import Grant
from service.api.cursors import decode_cursor, encode_cursor
from service.api.errors import bad_request, not_found, problem, v1_problems
from service.api.queries import AnswerStatus, QueryRequest, check_request, run_answer
from service.api.scopes import SCOPE_PATTERN
from service.api.state import AppResources
from service.api.traces import TRACE_ID_PATTERN
from service.records import (
    ListedRecord,
    RecordDetail,
    RecordFilter,
    list_records,
    read_detail,
)
from service.records.export import export_bundle, replay_report

__all__ = ["AnswerController", "AnswerPage"]

_CURSOR = re.compile(r"[0-9]{1,16}:t_[0-9a-f]{16}")
_SINCE = "%Y-%m-%dT%H:%M:%SZ"


class AnswerPage(msgspec.Struct, kw_only=True, rename="camel"):
    items: list[ListedRecord]
    # Pass as ?cursor= for the next page; null on the last page. A page examines at most
    # KGS_RECORDS_PAGE_SCAN records, so with a rare filter it may hold fewer than `limit` items
    # (even none) and still have a next one.
    next_cursor: str | None


class AnswerController(Controller):
    path = "/answers"
    tags = ["answers"]  # noqa: RUF012

    @get(sync_to_thread=True, responses=v1_problems(404))
    def list_answers(
        self,
        resources: AppResources,
        grant: Grant,
        scope_name: Annotated[str | None, Parameter(query="scope", pattern=SCOPE_PATTERN)] = None,
        status: AnswerStatus | None = None,
        since: Annotated[
            str | None,
            Parameter(description="records from this time on, UTC: 2026-12-01T00:00:00Z"),
        ] = None,
        q: Annotated[
            str | None, Parameter(max_length=200, description="a part of the question, any case")
        ] = None,
        stale: Annotated[
            bool | None,
            Parameter(
                description="true: only records whose documents changed since; false: only current"
            ),
        ] = None,
        cursor: Annotated[str | None, Parameter(max_length=200)] = None,
        limit: Annotated[int, Parameter(ge=1)] = 50,
    ) -> AnswerPage:
        """Answer records newest first, in the scopes the key may read: every abstention of the
        last day in a scope is `?scope=...&status=abstained&since=...`."""
        if scope_name is not None and not grant.can_read(scope_name):
            raise not_found("scope")
        limit = min(limit, resources.settings.records.max_page_size)
        after = None
        if cursor:
            ms, record_id = decode_cursor(cursor, _CURSOR).split(":")
            after = (int(ms), record_id)
        readable = grant.readable()
        where = RecordFilter(
            scopes=tuple(readable) if readable is not None else None, scope=scope_name,
            status=status, since_ms=_since_ms(since) if since else None, q=q or None, stale=stale,
        )  # fmt: skip
        page = list_records(resources.request_graph(), where, after=after, limit=limit,
                            scan=max(limit, resources.settings.records.page_scan))  # fmt: skip
        last = page.next_after
        return AnswerPage(
            items=page.items, next_cursor=encode_cursor(f"{last[0]}:{last[1]}") if last else None
        )

    @get("/{trace_id:str}/export", sync_to_thread=True, responses=v1_problems(404))
    def export_answer(
        self,
        resources: AppResources,
        grant: Grant,
        trace_id: Annotated[str, Parameter(pattern=TRACE_ID_PATTERN)],
    ) -> dict[str, Any]:
        """The record as one self-contained JSON bundle: question, answer, citations with their
        exact quotes and document versions, context pack, reviews, the Cypher with parameters."""
        return export_bundle(_readable(resources, grant, trace_id))

    @post("/{trace_id:str}/replay", status_code=200, responses=v1_problems(404, 409))
    async def replay_answer(
        self,
        resources: AppResources,
        grant: Grant,
        trace_id: Annotated[str, Parameter(pattern=TRACE_ID_PATTERN)],
    ) -> dict[str, Any]:
        """Ask the record's question again, as it was asked, and report what moved: the replay
        id, the status, the evidence and citations, and the documents changed since. The new
        answer is recorded too (replayTraceId)."""
        detail = await anyio.to_thread.run_sync(partial(_readable, resources, grant, trace_id))
        if "review" in (detail.response.get("kind"), detail.request.get("kind")):
            # A review binds documents, not a retrieval: there is no question to ask again.
            raise problem(409, "this record is a full-text review (POST /v1/reviews), not an "
                          "answer: reviews are not replayed; post the review again")  # fmt: skip
        asked = detail.request
        request = QueryRequest(query=detail.stored.query, scope=asked.get("scope"),
                               depth=asked.get("depth"), top_k=asked.get("topK"),
                               generate=asked.get("generate"))  # fmt: skip
        # A question that named no scope searches the same scopes again (all readable: checked).
        scopes = (
            await check_request(resources, grant, request)
            if request.scope is not None
            else detail.stored.scopes or (detail.stored.scope,)
        )
        again = await run_answer(resources, grant, scopes, request)
        return replay_report(detail, again)


def _readable(resources: AppResources, grant: Grant, trace_id: str) -> RecordDetail:
    if not resources.settings.records.enabled:
        raise problem(404, "answer records are turned off (KGS_RECORDS_ENABLED)")
    detail = read_detail(resources.request_graph(), trace_id)
    if detail is None or not all(map(grant.can_read, (detail.stored.scope, *detail.stored.scopes))):
        raise not_found("answer record")
    return detail


def _since_ms(text: str) -> int:
    try:
        return calendar.timegm(time.strptime(text, _SINCE)) * 1000
    except ValueError:
        raise bad_request(f"since must read like 2026-12-01T00:00:00Z, not {text!r}") from None
