"""Full-text reviews of whole documents (KGS_REVIEW_*, docs/reviews.md)."""

from __future__ import annotations

import msgspec

__all__ = ["ReviewSettings"]


class ReviewSettings(msgspec.Struct, frozen=True, kw_only=True):
    """The limits of one POST /v1/reviews. A review binds whole documents and is never cut to
    fit: text over `max_utf16_units` is refused (413), so every answer rests on all of it."""

    # The bound documents' exact sources together, in UTF-16 code units (what JavaScript and
    # most model tokenizers' providers count as string length; an astral character counts two).
    max_utf16_units: int = 16_000
    max_documents: int = 20  # documents one review binds
    max_questions: int = 20  # questions one review answers (each at most KGS_API_MAX_QUERY_CHARS)
    max_findings_per_question: int = 8  # quoted findings kept per question, in reading order
    # With a provider configured (KGS_LLM_BASE_URL), reviews ask it; off: always deterministic.
    llm: bool = True
    # The provider's reply for all questions at once (KGS_LLM_MAX_OUTPUT_TOKENS is the judge's
    # much smaller verdict); the call's timeout is KGS_LLM_TIMEOUT_S.
    llm_max_output_tokens: int = 4_000
