"""Drafts and tickets in Neo4j (cypher/escalations/): every state change is one statement, so
one transaction, and concurrent ones on one draft or ticket run one after the other."""

from __future__ import annotations

import secrets
import time
from typing import Any, Literal

import msgspec

from service.db.graph import Graph
from service.escalations.draft import DraftContent, content_hash

__all__ = [
    "ConfirmOutcome",
    "Draft",
    "Ticket",
    "TicketCount",
    "cancel_draft",
    "confirm_draft",
    "create_draft",
    "list_tickets",
    "read_draft",
    "read_ticket",
    "record_recheck",
    "resolve_ticket",
    "ticket_counts",
    "tickets_to_recheck",
]

DraftStatus = Literal["pending", "confirmed", "cancelled"]
TicketStatus = Literal["open", "answerable", "resolved"]
_NEWEST = 2**53 - 1  # a cursor time after every ticket


class Draft(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    """A draft as its owner reads it: `draft` is the content to send back on confirmation."""

    draft_id: str
    scope: str
    status: DraftStatus
    expired: bool
    created_at: str
    expires_at: str
    content_hash: str
    ticket_id: str | None
    draft: dict[str, Any]


class ConfirmOutcome(msgspec.Struct, frozen=True, kw_only=True):
    before: DraftStatus  # the draft's status when this confirmation got its turn
    expired: bool
    same: bool  # the confirmation carried the draft's content
    created: bool  # this confirmation created the ticket
    ticket_id: str | None  # the draft's ticket, whoever created it


class Ticket(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    ticket_id: str
    draft_id: str
    scope: str
    question: str
    status: TicketStatus
    key_name: str  # the configured name of the key that confirmed it
    answer_id: str
    answer_status: str
    missing_terms: list[str]
    created_at: str
    cited: list[str]  # the ids of the paragraphs its evidence quotes
    draft: dict[str, Any]
    checked_at: str | None = None  # the last time it was asked again
    last_answer_id: str | None = None
    last_answer_status: str | None = None
    answerable_at: str | None = None
    answerable_answer_id: str | None = None
    answerable_citations: list[dict[str, Any]] | None = None
    resolution: str | None = None
    resolved_by: str | None = None
    resolved_at: str | None = None


class TicketCount(msgspec.Struct, frozen=True, kw_only=True):
    scope: str
    status: str
    tickets: int


def create_draft(
    graph: Graph, content: DraftContent, *, key_name: str, ttl_s: float, now_ms: int | None = None
) -> Draft:
    now_ms = _now_ms() if now_ms is None else now_ms
    body = msgspec.to_builtins(content)
    draft_id, created_at = "esc_" + secrets.token_hex(8), iso(now_ms)
    expires_at_ms, digest = now_ms + int(ttl_s * 1000), content_hash(body)
    draft = {
        "id": draft_id, "keyName": key_name, "scope": content.scope,
        "question": content.question, "answerId": content.answer_id,
        "answerStatus": content.answer_status, "missing": content.missing_terms,
        "content": _json(body), "contentHash": digest, "createdAt": created_at,
        "createdAtMs": now_ms, "expiresAtMs": expires_at_ms,
    }  # fmt: skip
    spans = [
        {"documentId": e.document_id, "startOffset": e.start_offset, "endOffset": e.end_offset}
        for e in content.evidence
    ]
    graph.write("escalations/create_draft", draft=draft, spans=spans)
    return Draft(
        draft_id=draft_id, scope=content.scope, status="pending", expired=False,
        created_at=created_at, expires_at=iso(expires_at_ms), content_hash=digest,
        ticket_id=None, draft=body,
    )  # fmt: skip


def read_draft(
    graph: Graph, draft_id: str, key_name: str, now_ms: int | None = None
) -> Draft | None:
    """The draft if that key owns it; None for an unknown draft and for another key's alike."""
    now_ms = _now_ms() if now_ms is None else now_ms
    rows = graph.read("escalations/draft", draftId=draft_id, keyName=key_name)
    if not rows:
        return None
    row = rows[0]
    return Draft(
        draft_id=row["id"], scope=row["scope"], status=row["status"],
        expired=row["status"] == "pending" and int(row["expiresAtMs"]) <= now_ms,
        created_at=row["createdAt"], expires_at=iso(int(row["expiresAtMs"])),
        content_hash=row["contentHash"], ticket_id=row["ticketId"],
        draft=msgspec.json.decode(row["content"]),
    )  # fmt: skip


def confirm_draft(
    graph: Graph, draft_id: str, key_name: str, content: Any, now_ms: int | None = None
) -> ConfirmOutcome | None:
    """`content`: the draft as the confirmation sent it back. None: no such draft for the key."""
    now_ms = _now_ms() if now_ms is None else now_ms
    rows = graph.write(
        "escalations/confirm_draft", draftId=draft_id, keyName=key_name,
        contentHash=content_hash(content), ticketId="tkt_" + secrets.token_hex(8),
        nowMs=now_ms, now=iso(now_ms),
    ).rows  # fmt: skip
    if not rows:
        return None
    row = rows[0]
    return ConfirmOutcome(before=row["before"], expired=bool(row["expired"]),
                          same=bool(row["same"]), created=bool(row["created"]),
                          ticket_id=row["ticketId"])  # fmt: skip


def cancel_draft(graph: Graph, draft_id: str, key_name: str) -> DraftStatus | None:
    """The status the cancellation found (pending: now cancelled); None: no such draft."""
    rows = graph.write("escalations/cancel_draft", draftId=draft_id, keyName=key_name,
                       now=iso(_now_ms())).rows  # fmt: skip
    return rows[0]["before"] if rows else None


def read_ticket(graph: Graph, ticket_id: str) -> Ticket | None:
    rows = graph.read("escalations/ticket", ticketId=ticket_id)
    return _ticket(rows[0]["ticket"]) if rows else None


def list_tickets(
    graph: Graph,
    *,
    scopes: list[str] | None,
    scope: str | None,
    status: str | None,
    after: tuple[int, str] | None,
    limit: int,
) -> tuple[list[Ticket], tuple[int, str] | None]:
    """A page newest first, and where the next one starts (None: this was the last)."""
    before_ms, before_id = after if after is not None else (_NEWEST, "")
    [row] = graph.read("escalations/tickets_page", scopes=scopes, scope=scope, status=status,
                       beforeMs=before_ms, beforeId=before_id, limit=limit)  # fmt: skip
    raw = row["tickets"]
    tickets = [_ticket(t) for t in raw]
    last = (int(raw[-1]["createdAtMs"]), str(raw[-1]["id"])) if len(raw) == limit else None
    return tickets, last


def resolve_ticket(
    graph: Graph, ticket_id: str, *, key_name: str, resolution: str
) -> tuple[TicketStatus, Ticket] | None:
    """The status found and the ticket after; None: no such ticket."""
    rows = graph.write("escalations/resolve_ticket", ticketId=ticket_id, keyName=key_name,
                       resolution=resolution, now=iso(_now_ms())).rows  # fmt: skip
    return (rows[0]["before"], _ticket(rows[0]["ticket"])) if rows else None


def tickets_to_recheck(graph: Graph, batch: int) -> list[dict[str, Any]]:
    """Open tickets whose scope changed since they were last asked: id, scope, question, seq."""
    return graph.read("escalations/tickets_to_recheck", batch=batch)


def record_recheck(
    graph: Graph,
    ticket_id: str,
    *,
    seq: int,
    answer_id: str,
    answer_status: str,
    citations: list[dict[str, Any]] | None,
) -> str | None:
    """`citations` given: the ticket is answerable now. The ticket's status after (None: it was
    resolved or re-checked meanwhile, and is left as it is)."""
    rows = graph.write(
        "escalations/record_recheck", ticketId=ticket_id, seq=seq,
        answerable=citations is not None, answerId=answer_id, answerStatus=answer_status,
        citations=_json(citations) if citations is not None else None, now=iso(_now_ms()),
    ).rows  # fmt: skip
    return str(rows[0]["status"]) if rows else None


def ticket_counts(graph: Graph) -> list[TicketCount]:
    return [msgspec.convert(row, TicketCount) for row in graph.read("escalations/ticket_counts")]


def _ticket(node: dict[str, Any]) -> Ticket:
    citations = node.get("answerableCitations")
    return Ticket(
        ticket_id=node["id"], draft_id=node["draftId"], scope=node["scope"],
        question=node["question"], status=node["status"], key_name=node["keyName"],
        answer_id=node["answerId"], answer_status=node["answerStatus"],
        missing_terms=list(node.get("missing") or ()), created_at=node["createdAt"],
        cited=sorted(node.get("cited") or ()), draft=msgspec.json.decode(node["content"]),
        checked_at=node.get("checkedAt"), last_answer_id=node.get("lastAnswerId"),
        last_answer_status=node.get("lastAnswerStatus"), answerable_at=node.get("answerableAt"),
        answerable_answer_id=node.get("answerableAnswerId"),
        answerable_citations=msgspec.json.decode(citations) if citations else None,
        resolution=node.get("resolution"), resolved_by=node.get("resolvedBy"),
        resolved_at=node.get("resolvedAt"),
    )  # fmt: skip


def iso(epoch_ms: int) -> str:
    seconds, millis = divmod(epoch_ms, 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{millis:03d}Z"


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


def _json(value: Any) -> str:
    return msgspec.json.encode(value).decode()
