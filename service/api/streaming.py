"""POST /v1/query/stream: the same answer as server-sent events.

    event: started    {"traceId", "scope", "scopes"}   scope: null when the question named none
                      and the key reads several scopes; scopes: those to be searched
    event: progress   {"stage", "statement", "rows", "elapsedMs"}   one per Cypher statement,
                      as it finishes (stage: retrieval, graphContext, augmentation, ...)
    event: delta      {"text"}   with `generate`, each sentence the model has written, as soon
                      as it passes the line checks and the injection screen (docs/generation.md)
    event: answer     the answer response of POST /v1/query, authoritative; after deltas it
                      adds "streamed": {"sentences", "revised"}: revised is true when the
                      answer is not the streamed sentences (the review changed them, or the
                      provider failed and the composed answer is given)
    event: error      a problem details object (an error after the stream has started)

Requests that are invalid, unauthorised or outside the grant are refused before the stream
starts, with the same problem responses as POST /v1/query.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Annotated, Any

import msgspec
from litestar import Controller, post
from litestar.params import Body, Parameter
from litestar.response import ServerSentEvent, ServerSentEventMessage

from service.api.auth import Grant
from service.api.context import current_trace_id
from service.api.errors import problem_for, v1_problems
from service.api.queries import (
    CLOSED_OBJECT,
    QueryRequest,
    check_request,
    run_answer,
    to_response,
)
from service.api.state import AppResources
from service.api.telemetry import stage_of
from service.db.graph import CypherCall

__all__ = ["StreamController"]


def _event(event: str, data: Any) -> ServerSentEventMessage:
    return ServerSentEventMessage(event=event, data=msgspec.json.encode(data).decode())


def _progress(call: CypherCall) -> ServerSentEventMessage:
    return _event("progress", {"stage": stage_of(call.statement), "statement": call.statement,
                               "rows": call.rows, "elapsedMs": call.elapsed_ms})  # fmt: skip


class StreamController(Controller):
    path = "/query/stream"
    tags = ["query"]  # noqa: RUF012

    @post(status_code=200, media_type="text/event-stream",
          responses=v1_problems(404))  # fmt: skip
    async def stream(
        self,
        resources: AppResources,
        grant: Grant,
        data: Annotated[QueryRequest, Body(schema_extra=CLOSED_OBJECT)],
        trace: Annotated[bool, Parameter(description="include the full trace")] = True,
    ) -> ServerSentEvent:
        """Stage progress while the question is answered, then the answer."""
        scopes = await check_request(resources, grant, data)
        return ServerSentEvent(_events(resources, grant, scopes, data, with_trace=trace))


async def _events(
    resources: AppResources,
    grant: Grant,
    scopes: tuple[str, ...],
    request: QueryRequest,
    *,
    with_trace: bool,
) -> AsyncIterator[ServerSentEventMessage]:
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[ServerSentEventMessage | None] = asyncio.Queue()

    def on_call(call: CypherCall) -> None:  # runs in the worker thread
        loop.call_soon_threadsafe(queue.put_nowait, _progress(call))

    streamed: list[str] = []

    def on_sentence(text: str) -> None:  # runs in the worker thread
        streamed.append(text)
        loop.call_soon_threadsafe(queue.put_nowait, _event("delta", {"text": text}))

    scope = scopes[0] if len(scopes) == 1 else None
    yield _event("started", {"traceId": current_trace_id(), "scope": scope, "scopes": scopes})
    task = asyncio.ensure_future(
        run_answer(resources, grant, scopes, request, on_call, on_sentence)
    )
    # Progress callbacks were queued before the worker returned, so they arrive first.
    task.add_done_callback(lambda _: queue.put_nowait(None))
    try:
        while (message := await queue.get()) is not None:
            yield message
        response = task.result()
    except Exception as error:
        failure = problem_for(error)
        extra = failure.extra if isinstance(failure.extra, dict) else {}
        body = {"status": failure.status_code, "title": failure.title, "detail": failure.detail}
        yield _event("error", {**body, **extra})
        return
    finally:
        if not task.done():
            # A client that left: the answer still finishes; only a failure is logged.
            task.add_done_callback(_log_failure)
    body = msgspec.to_builtins(to_response(response, with_trace=with_trace))
    if streamed:
        body["streamed"] = {"sentences": len(streamed),
                            "revised": body["answer"] != " ".join(streamed)}  # fmt: skip
    yield _event("answer", body)


log = logging.getLogger("kgs.api")


def _log_failure(task: asyncio.Future[Any]) -> None:
    """The outcome of an answer whose client left the stream: nobody reads it, so log errors."""
    if not task.cancelled() and (error := task.exception()) is not None:
        log.error("answer failed after its client left the stream", exc_info=error)
