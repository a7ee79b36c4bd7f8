"""Knowledge-gap escalations: drafts, tickets and their re-check (KGS_ESCALATION_*)."""

from __future__ import annotations

from typing import Annotated

import msgspec

from service.settings.environment import ZERO_ALLOWED

__all__ = ["EscalationSettings"]


class EscalationSettings(msgspec.Struct, frozen=True, kw_only=True):
    """Bounds of the escalation flow (service/escalations/, docs/escalations.md)."""

    enabled: bool = True  # off: no drafts, tickets or re-checks
    draft_ttl_s: float = 3_600.0  # a draft not confirmed within this is expired (410)
    evidence_items: int = 5  # the closest evidence a draft quotes, at most
    conflict_items: int = 5  # the conflicting statements a draft quotes, at most
    note_chars: int = 1_000  # the asker's own note on a preview, at most
    resolution_chars: int = 2_000  # an editor's resolution text, at most
    max_page_size: int = 200  # tickets per page of GET /v1/escalations
    # The open tickets of a scope are asked again once its documents changed: the service looks
    # this often (0: never), at most `recheck_batch` tickets per pass.
    recheck_interval_s: Annotated[float, ZERO_ALLOWED] = 5.0
    recheck_batch: int = 20
    # /metrics counts open tickets per scope, read from Neo4j at most this often.
    metric_interval_s: float = 60.0
