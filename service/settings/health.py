"""The knowledge-base health report (KGS_HEALTH_*, docs/health.md)."""

from __future__ import annotations

import msgspec

__all__ = ["HealthSettings"]


class HealthSettings(msgspec.Struct, frozen=True, kw_only=True):
    """What one report of a scope reads and returns: each section is paged, and each page is
    read anew (a report is computed, never stored)."""

    page_size: int = 50  # findings per section and page when the caller names no limit
    max_page_size: int = 500  # the largest limit a caller may ask for
    # Contradicting subjects read per report before ranking by citations: a scope with more
    # is reported as truncated.
    max_contradictions: int = 10_000
    max_sides: int = 20  # statements listed per contradicting subject
    quote_chars: int = 200  # longest quote of a fact's sentence
