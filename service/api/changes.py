"""The publication change feed of a scope (docs/versions.md).

Every change of what a scope publishes is one event, numbered 1, 2, 3, ... per scope in commit
order: added, updated (old and new version), restored, withdrawn, purged. A client keeps the last
number it has seen and asks for what came after it; replaying from 0 rebuilds exactly the current
documents and their head versions.

    GET /v1/changes?scope=&after=&limit=   {items, last}: pass `last` as the next `after`
    GET /v1/changes/stream?scope=&after=   server-sent events `change` (id: the number), which
                                           follow new events; Last-Event-ID resumes a stream

Retention deletes events older than KGS_VERSIONS_FEED_MAX_AGE_S (ingest/retention.py). A cursor
before the newest deleted event has missed events for good, so both routes answer it 410
problem+json (`expired`, `oldestRetained`, `restartAfter` 0); `after` 0 is a reader starting
afresh and gets the events kept.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Annotated, Any, Literal

import anyio
import msgspec
from litestar import Controller, get
from litestar.params import Parameter
from litestar.plugins.problem_details import ProblemDetailsException
from litestar.response import ServerSentEvent, ServerSentEventMessage

from ingest.retention import FeedCursorExpired, check_feed_cursor
from service.api.auth import Grant
from service.api.errors import problem, v1_problems
from service.api.scopes import SCOPE_PATTERN, readable_scope
from service.api.state import AppResources

__all__ = ["ChangeController", "ChangeEvent", "ChangePage"]

ChangeKind = Literal[
    "added", "updated", "restored", "withdrawn", "purged", "modelActivated", "gapAnswerable",
    "conflictResolved", "switchRefused",
]  # fmt: skip
_SCOPE = Parameter(query="scope", pattern=SCOPE_PATTERN)
MAX_SEQ = 2**63 - 1  # Neo4j's integers are 64-bit
_AFTER = Parameter(ge=0, le=MAX_SEQ, description="the last event number seen (0: from the start)")
RETRY_AFTER_S = 5  # what a refused stream suggests


class ChangeEvent(msgspec.Struct, kw_only=True, rename="camel"):
    seq: int
    kind: ChangeKind
    document_id: str | None  # null for modelActivated, switchRefused and gapAnswerable
    path: str | None
    old_version: int | None  # the head before (null when added)
    new_version: int | None  # the head after (null when withdrawn or purged)
    at: str
    # modelActivated: the model now active (name@dimensions) and the one it replaced;
    # switchRefused: the model a gated switch did not activate and the one still active
    model: str | None = None
    previous_model: str | None = None
    # switchRefused: the quality gates the new model missed ("recall_at_1 >= 0.95: 0.91")
    failed_gates: list[str] | None = None
    # gapAnswerable: the escalation ticket whose question is answered now (docs/escalations.md)
    ticket_id: str | None = None
    # conflictResolved: the subjects (key, and conditions in brackets) the document's new
    # version no longer leaves contradicted (the health report's, docs/health.md)
    subjects: list[str] | None = None


class ChangePage(msgspec.Struct, kw_only=True, rename="camel"):
    scope: str
    items: list[ChangeEvent]
    last: int  # the next request's `after`: the last event's number, or `after` when none


class ChangeController(Controller):
    path = "/changes"
    tags = ["changes"]  # noqa: RUF012

    @get(sync_to_thread=True, responses=v1_problems(404, 410))
    def changes(
        self,
        resources: AppResources,
        grant: Grant,
        scope_name: Annotated[str, _SCOPE],
        after: Annotated[int, _AFTER] = 0,
        limit: Annotated[int, Parameter(ge=1)] = 100,
    ) -> ChangePage:
        """A scope's publication events after `after`, oldest first."""
        scope = readable_scope(grant, scope_name)
        limit = min(limit, resources.settings.versions.max_feed_page)
        try:
            items = _events(resources, scope, after, limit)
        except FeedCursorExpired as error:
            raise _gone(error) from None
        return ChangePage(scope=scope, items=items, last=items[-1].seq if items else after)

    @get("/stream", media_type="text/event-stream", responses=v1_problems(404, 410, 503))
    async def stream(
        self,
        resources: AppResources,
        grant: Grant,
        scope_name: Annotated[str, _SCOPE],
        after: Annotated[int, _AFTER] = 0,
        last_event_id: Annotated[
            int | None, Parameter(header="Last-Event-ID", ge=0, le=MAX_SEQ, required=False)
        ] = None,
    ) -> ServerSentEvent:
        """The same events as a stream that follows new ones as they are committed."""
        scope = readable_scope(grant, scope_name)
        limit = resources.settings.versions.max_streams
        if resources.feed_streams >= limit:
            raise problem(503, f"{limit} change streams are open (KGS_VERSIONS_MAX_STREAMS); "
                          "try again later or page with GET /v1/changes",
                          headers={"Retry-After": str(RETRY_AFTER_S)})  # fmt: skip
        start = last_event_id if last_event_id is not None else after
        try:  # now, while the answer can still be 410; a stream that started has sent 200
            await anyio.to_thread.run_sync(check_feed_cursor, resources.request_graph(), scope,
                                           start)  # fmt: skip
        except FeedCursorExpired as error:
            raise _gone(error) from None
        return ServerSentEvent(_follow(resources, scope, start))


async def _follow(
    resources: AppResources, scope: str, after: int
) -> AsyncIterator[ServerSentEventMessage]:
    """Counted among the open streams while it runs (KGS_VERSIONS_MAX_STREAMS)."""
    resources.feed_streams += 1
    try:
        async for message in _events_until(resources, scope, after):
            yield message
    finally:
        resources.feed_streams -= 1


async def _events_until(
    resources: AppResources, scope: str, after: int
) -> AsyncIterator[ServerSentEventMessage]:
    settings = resources.settings.versions
    started = quiet_since = time.monotonic()
    while time.monotonic() - started < settings.max_stream_s:
        try:
            items = await anyio.to_thread.run_sync(
                _events, resources, scope, after, settings.max_feed_page
            )
        except FeedCursorExpired:
            return  # retention overtook this stream: the reconnect (Last-Event-ID) gets 410
        for item in items:
            yield ServerSentEventMessage(
                event="change", id=str(item.seq), data=msgspec.json.encode(item).decode()
            )
            after = item.seq
        now = time.monotonic()
        if items:
            quiet_since = now
        elif now - quiet_since >= settings.feed_heartbeat_s:
            yield ServerSentEventMessage(comment="heartbeat")
            quiet_since = now
        if len(items) < settings.max_feed_page:
            await asyncio.sleep(settings.feed_poll_s)


def _events(resources: AppResources, scope: str, after: int, limit: int) -> list[ChangeEvent]:
    """The page, then retention's boundary: a deletion that races the page shows in the
    boundary read after it, so it ends as a 410 (at worst one the reader did not need), never
    as a silent gap. A reader from 0 gets only events after the boundary, for the same reason."""
    graph = resources.request_graph()
    rows: list[dict[str, Any]] = graph.read(
        "api/changes_page", scope=scope, after=after, limit=limit
    )
    deleted_through = check_feed_cursor(graph, scope, after)
    return [msgspec.convert(row, ChangeEvent) for row in rows if row["seq"] > deleted_through]


def _gone(error: FeedCursorExpired) -> ProblemDetailsException:
    return problem(410, error.public_detail(), expired=True, after=error.after,
                   oldestRetained=error.deleted_through + 1, restartAfter=0)  # fmt: skip
