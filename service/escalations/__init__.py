"""Knowledge gaps that go somewhere (docs/escalations.md): an abstained, partial, conflict or
stale answer becomes a draft, the draft a ticket once its owner confirms it, and an open ticket
is asked again whenever its scope's documents change."""

from service.escalations.draft import (
    ESCALATABLE,
    ConflictQuote,
    DraftContent,
    EvidenceQuote,
    content_hash,
    draft_content,
    escalation_offer,
)
from service.escalations.store import (
    ConfirmOutcome,
    Draft,
    Ticket,
    TicketCount,
    cancel_draft,
    confirm_draft,
    create_draft,
    list_tickets,
    read_draft,
    read_ticket,
    record_recheck,
    resolve_ticket,
    ticket_counts,
    tickets_to_recheck,
)

__all__ = [
    "ESCALATABLE",
    "ConfirmOutcome",
    "ConflictQuote",
    "Draft",
    "DraftContent",
    "EvidenceQuote",
    "Ticket",
    "TicketCount",
    "cancel_draft",
    "confirm_draft",
    "content_hash",
    "create_draft",
    "draft_content",
    "escalation_offer",
    "list_tickets",
    "read_draft",
    "read_ticket",
    "record_recheck",
    "resolve_ticket",
    "ticket_counts",
    "tickets_to_recheck",
]
