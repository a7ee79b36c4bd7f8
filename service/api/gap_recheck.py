"""Gaps that close themselves: while the API serves, the open tickets of every scope whose
documents were added, updated or restored since the ticket was last asked are asked again, a
batch every KGS_ESCALATION_RECHECK_INTERVAL_S. The question runs through the answer path like a
client's (its answer is recorded too); an `answered` status marks the ticket `answerable`, with
that answer's citations, and puts a `gapAnswerable` event on the scope's change feed. Watching
the feed rather than the upload route catches `kgs ingest` runs as well."""

from __future__ import annotations

import logging
from functools import partial

import anyio

from service.api.auth import Grant
from service.api.context import new_trace_id, trace_id_var
from service.api.metrics import count_escalation
from service.api.queries import QueryRequest, run_answer
from service.api.state import AppResources, run_periodically
from service.escalations import record_recheck, tickets_to_recheck

__all__ = ["RECHECK_KEY", "recheck_gaps", "recheck_once"]

log = logging.getLogger("kgs.escalations")

RECHECK_KEY = "escalation-recheck"  # the key name its answer records carry


async def recheck_gaps(resources: AppResources) -> None:
    """The background task (service/api/state.py lifespan); ends only when cancelled."""
    settings = resources.settings.escalations
    if settings.enabled:
        await run_periodically(
            resources, settings.recheck_interval_s, recheck_once, "open ticket re-check"
        )


async def recheck_once(resources: AppResources) -> int:
    """One pass over at most recheck_batch tickets; how many became answerable."""
    graph = resources.request_graph()
    due = await anyio.to_thread.run_sync(
        tickets_to_recheck, graph, resources.settings.escalations.recheck_batch
    )
    answerable = 0
    for row in due:
        scope = str(row["scope"])
        grant = Grant(key=RECHECK_KEY, scopes=frozenset({scope}), write=False)
        token = trace_id_var.set(new_trace_id())  # one id per re-asked question, as per request
        try:
            response = await run_answer(
                resources, grant, (scope,), QueryRequest(query=row["question"], scope=scope)
            )
        finally:
            trace_id_var.reset(token)
        answered = response["status"] == "answered"
        status = await anyio.to_thread.run_sync(partial(
            record_recheck, graph, str(row["id"]), seq=int(row["seq"]),
            answer_id=str(response["trace"]["traceId"]), answer_status=str(response["status"]),
            citations=list(response["citations"]) if answered else None,
        ))  # fmt: skip
        if status == "answerable":
            answerable += 1
            count_escalation("answerable")
    return answerable
