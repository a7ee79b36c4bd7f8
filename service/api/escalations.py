"""Escalation of knowledge gaps over the API (docs/escalations.md).

    POST /v1/escalations/preview                 {answerId, note?} -> 201 a pending draft
    GET  /v1/escalations/drafts/{draftId}        the draft, for the key that made it
    POST /v1/escalations/{draftId}/confirm       {draft} -> 201 the ticket (200: made before)
    POST /v1/escalations/{draftId}/cancel        -> the cancelled draft (terminal)
    GET  /v1/escalations?scope=&status=&cursor=  tickets, newest first
    GET  /v1/escalations/tickets/{ticketId}      one ticket
    POST /v1/escalations/tickets/{ticketId}/resolve  {resolution}, an editor (write) key

A draft belongs to the key that made it: for any other key it does not exist (404, the answer an
unknown id gets). A ticket is read by the keys that may read its scope.
"""

from __future__ import annotations

import re
from functools import partial
from typing import Annotated, Any

import anyio
import msgspec
from litestar import Controller, Response, get, post
from litestar.params import Body, Parameter

from service.api.auth import Grant, requires_write
from service.api.cursors import decode_cursor, encode_cursor
from service.api.errors import not_found, problem, v1_problems
from service.api.metrics import count_escalation
from service.api.queries import CLOSED_OBJECT
from service.api.scopes import SCOPE_PATTERN
from service.api.state import AppResources
from service.escalations import (
    ESCALATABLE,
    Draft,
    Ticket,
    cancel_draft,
    confirm_draft,
    create_draft,
    draft_content,
    list_tickets,
    read_draft,
    read_ticket,
    resolve_ticket,
)
from service.escalations.store import TicketStatus
from service.records import read_detail
from service.settings import EscalationSettings

__all__ = ["EscalationController", "TicketPage", "draft_escalation"]

_ANSWER_ID = re.compile(r"t_[0-9a-f]{16}")
_DRAFT_ID = re.compile(r"esc_[0-9a-f]{16}")
_TICKET_ID = re.compile(r"tkt_[0-9a-f]{16}")
_CURSOR = re.compile(r"[0-9]{1,16}:tkt_[0-9a-f]{16}")
# A preview waits at most this long for the answer's record to be written (records are written
# after the answer, by one background thread).
RECORD_WAIT_S = 5.0


class PreviewRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True,
                     rename="camel"):  # fmt: skip
    answer_id: Annotated[str, msgspec.Meta(
        description="the answer's traceId (the response's traceId or X-Trace-Id header)"
    )]  # fmt: skip
    note: Annotated[str | None, msgspec.Meta(description="the asker's own words")] = None


class ConfirmRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    draft: Annotated[
        dict[str, Any], msgspec.Meta(description="the preview's `draft`, exactly as received")
    ]


class ResolveRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    resolution: Annotated[str, msgspec.Meta(min_length=1, description="what was done")]


class TicketPage(msgspec.Struct, kw_only=True, rename="camel"):
    items: list[Ticket]
    next_cursor: str | None  # pass as ?cursor= for the next page; null on the last


class EscalationController(Controller):
    path = "/escalations"
    tags = ["escalations"]  # noqa: RUF012

    @post("/preview", status_code=201, responses=v1_problems(404, 409))
    async def preview(
        self,
        resources: AppResources,
        grant: Grant,
        data: Annotated[PreviewRequest, Body(schema_extra=CLOSED_OBJECT)],
    ) -> Draft:
        """Draft an escalation of an answer that left a gap: its question, scope, what was
        missing, the closest evidence with citations and any conflicting values. Nothing is
        created but the draft, pending until its key confirms it."""
        return await draft_escalation(resources, grant, data.answer_id, data.note)

    @get("/drafts/{draft_id:str}", sync_to_thread=True, responses=v1_problems(404))
    def draft(self, resources: AppResources, grant: Grant, draft_id: str) -> Draft:
        """A draft of this key, with its status (and ticket once confirmed)."""
        _settings(resources)
        found = _DRAFT_ID.fullmatch(draft_id) and read_draft(
            resources.request_graph(), draft_id, grant.key
        )
        if not found:
            raise not_found("draft")
        return found

    @post("/{draft_id:str}/confirm", sync_to_thread=True, responses=v1_problems(404, 409, 410))
    def confirm(
        self,
        resources: AppResources,
        grant: Grant,
        draft_id: str,
        data: Annotated[ConfirmRequest, Body(schema_extra=CLOSED_OBJECT)],
    ) -> Response[Ticket]:
        """Create the ticket from the server's draft: only for the key that made it, while it is
        pending and unexpired, and only with its content unchanged (409 otherwise, 410 once
        expired). Confirming again returns the same ticket (200): a draft makes one ticket."""
        _settings(resources)
        graph = resources.request_graph()
        outcome = _DRAFT_ID.fullmatch(draft_id) and confirm_draft(
            graph, draft_id, grant.key, data.draft
        )
        if not outcome:
            raise not_found("draft")
        if outcome.before == "cancelled":
            raise problem(409, "the draft was cancelled; preview the answer again")
        if outcome.before == "pending" and outcome.expired:
            raise problem(410, "the draft expired (KGS_ESCALATION_DRAFT_TTL_S); preview again")
        if not outcome.same:
            raise problem(409, "the draft sent differs from the server's draft: send the "
                          "preview's `draft` unchanged")  # fmt: skip
        ticket = read_ticket(graph, str(outcome.ticket_id))
        if ticket is None:  # resolved tickets are kept; only a deleted scope removes them
            raise not_found("ticket")
        if outcome.created:
            count_escalation("confirmed")
        return Response(ticket, status_code=201 if outcome.created else 200)

    @post("/{draft_id:str}/cancel", status_code=200, sync_to_thread=True,
          responses=v1_problems(404, 409))  # fmt: skip
    def cancel(self, resources: AppResources, grant: Grant, draft_id: str) -> Draft:
        """Cancel a pending draft, for good. A confirmed draft cannot be cancelled (409)."""
        _settings(resources)
        graph = resources.request_graph()
        before = _DRAFT_ID.fullmatch(draft_id) and cancel_draft(graph, draft_id, grant.key)
        if not before:
            raise not_found("draft")
        if before == "confirmed":
            raise problem(409, "the draft was confirmed: its ticket stands")
        if before == "pending":
            count_escalation("cancelled")
        draft = read_draft(graph, draft_id, grant.key)
        assert draft is not None  # drafts are never deleted but with their scope
        return draft

    @get(sync_to_thread=True, responses=v1_problems(404))
    def tickets(
        self,
        resources: AppResources,
        grant: Grant,
        scope_name: Annotated[str | None, Parameter(query="scope", pattern=SCOPE_PATTERN)] = None,
        status: TicketStatus | None = None,
        cursor: Annotated[str | None, Parameter(max_length=200)] = None,
        limit: Annotated[int, Parameter(ge=1)] = 50,
    ) -> TicketPage:
        """Tickets newest first, in the scopes the key may read."""
        settings = _settings(resources)
        if scope_name is not None and not grant.can_read(scope_name):
            raise not_found("scope")
        after = None
        if cursor:
            ms, ticket_id = decode_cursor(cursor, _CURSOR).split(":")
            after = (int(ms), ticket_id)
        items, last = list_tickets(
            resources.request_graph(), scopes=grant.readable(), scope=scope_name, status=status,
            after=after, limit=min(limit, settings.max_page_size),
        )  # fmt: skip
        return TicketPage(
            items=items, next_cursor=encode_cursor(f"{last[0]}:{last[1]}") if last else None
        )

    @get("/tickets/{ticket_id:str}", sync_to_thread=True, responses=v1_problems(404))
    def ticket(self, resources: AppResources, grant: Grant, ticket_id: str) -> Ticket:
        _settings(resources)
        return _readable_ticket(resources, grant, ticket_id)

    @post("/tickets/{ticket_id:str}/resolve", status_code=200, sync_to_thread=True,
          guards=[requires_write], responses=v1_problems(403, 404, 409))  # fmt: skip
    def resolve(
        self,
        resources: AppResources,
        grant: Grant,
        ticket_id: str,
        data: Annotated[ResolveRequest, Body(schema_extra=CLOSED_OBJECT)],
    ) -> Ticket:
        """Close a ticket (open or answerable) with what was done; an editor key of its scope."""
        settings = _settings(resources)
        resolution = data.resolution.strip()
        if not resolution or len(resolution) > settings.resolution_chars:
            raise problem(400, f"resolution must hold 1 to {settings.resolution_chars} characters")
        _readable_ticket(resources, grant, ticket_id)
        done = resolve_ticket(resources.request_graph(), ticket_id, key_name=grant.key,
                              resolution=resolution)  # fmt: skip
        if done is None:
            raise not_found("ticket")
        before, ticket = done
        if before == "resolved":
            raise problem(409, "the ticket was resolved already")
        count_escalation("resolved")
        return ticket


async def draft_escalation(
    resources: AppResources, grant: Grant, answer_id: str, note: str | None
) -> Draft:
    """A pending draft of the answer `answer_id` (POST /v1/escalations/preview and the MCP
    tool escalation_preview): 404 for an answer the key may not read, 409 for one that left no
    gap."""
    settings = _settings(resources)
    note = (note or "").strip() or None
    if note is not None and len(note) > settings.note_chars:
        raise problem(400, f"note is longer than {settings.note_chars} characters")
    response, query, scope = await anyio.to_thread.run_sync(_answer, resources, grant, answer_id)
    status = str(response.get("status"))
    if status not in ESCALATABLE:
        raise problem(409, f"the answer is {status}: only an abstained, partial, conflict or "
                      "stale answer can be escalated")  # fmt: skip
    content = draft_content(response, query=query, scope=scope, note=note,
                            evidence_items=settings.evidence_items,
                            conflict_items=settings.conflict_items)  # fmt: skip
    draft = await anyio.to_thread.run_sync(partial(
        create_draft, resources.request_graph(), content, key_name=grant.key,
        ttl_s=settings.draft_ttl_s,
    ))  # fmt: skip
    count_escalation("preview")
    return draft


def _settings(resources: AppResources) -> EscalationSettings:
    if not resources.settings.escalations.enabled:
        raise problem(404, "escalations are turned off (KGS_ESCALATION_ENABLED)")
    return resources.settings.escalations


def _readable_ticket(resources: AppResources, grant: Grant, ticket_id: str) -> Ticket:
    ticket = _TICKET_ID.fullmatch(ticket_id) and read_ticket(resources.request_graph(), ticket_id)
    if not ticket or not grant.can_read(ticket.scope):
        raise not_found("ticket")
    return ticket


def _answer(
    resources: AppResources, grant: Grant, answer_id: str
) -> tuple[dict[str, Any], str, str]:
    """The answer as the API returned it, its question and scope: from its record, else from
    the recent traces (records turned off). 404 for one the key may not read."""
    if _ANSWER_ID.fullmatch(answer_id):
        if resources.records is not None:
            resources.records.flush(RECORD_WAIT_S)
            detail = read_detail(resources.request_graph(), answer_id)
            if detail is not None and _may_read(grant, detail.stored.scope, detail.stored.scopes):
                return detail.response, detail.stored.query, detail.stored.scope
        stored = resources.traces.get(answer_id)
        if stored is not None and _may_read(grant, stored.scope, stored.scopes):
            return {"status": stored.status, "trace": stored.trace}, stored.query, stored.scope
    raise not_found("answer")


def _may_read(grant: Grant, scope: str, searched: tuple[str, ...]) -> bool:
    """An answer is the key's to escalate if it may read every scope the question searched."""
    return all(map(grant.can_read, (scope, *searched)))
