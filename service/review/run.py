"""run_review: every question of a review against one binding, by the model or without one."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from typing import Any, Literal

import msgspec

from service.answer.judge import ChatCompleter
from service.review.deterministic import review_question, sentence_pool
from service.review.llm import review_with_llm
from service.review.model import Binding, Method, QuestionReview
from service.review.resolver import ObservedIds
from service.review.screening import QuoteScreen
from service.settings import AnswerSettings, ReviewSettings

__all__ = ["OverallStatus", "ReviewOutcome", "overall_status", "replay_id", "run_review"]

# A review as an answer record's status: all ANSWERED, some answered in part, none.
OverallStatus = Literal["answered", "partial", "abstained"]
_REPLAY_VERSION = "review/v1"  # bump when what a replay id covers changes


class ReviewOutcome(msgspec.Struct, frozen=True, kw_only=True):
    results: tuple[QuestionReview, ...]
    method: Method
    llm: dict[str, Any] | None  # the provider call's trace (LLM path)
    screened: dict[str, int]  # sentences the quote screen refused, by reason (deterministic)
    elapsed_ms: float


def run_review(
    binding: Binding,
    questions: Sequence[str],
    *,
    answer: AnswerSettings,
    review: ReviewSettings,
    client: ChatCompleter | None,
) -> ReviewOutcome:
    """`client` None: the deterministic reviewer; otherwise one call to the provider."""
    started = time.perf_counter()
    resolver = ObservedIds.of(binding)
    screen = QuoteScreen.of(p.text for p in binding.paragraphs)
    limit = review.max_findings_per_question
    if client is None:
        pool = sentence_pool(binding, screen)
        results = [
            review_question(q, binding, pool, resolver, settings=answer, max_findings=limit)
            for q in questions
        ]
        method: Method = "deterministic"
        call, screened = None, pool.screened
    else:
        results, call = review_with_llm(client, questions, binding, resolver, screen,
                                        max_findings=limit)  # fmt: skip
        method, screened = "llm", {}
    return ReviewOutcome(
        results=tuple(results), method=method, llm=call, screened=screened,
        elapsed_ms=round((time.perf_counter() - started) * 1000, 2),
    )  # fmt: skip


def overall_status(results: Sequence[QuestionReview]) -> OverallStatus:
    """answered when every question is ANSWERED, partial when any is ANSWERED or PARTIAL,
    abstained otherwise (no question, or none found)."""
    if results and all(r.status == "ANSWERED" for r in results):
        return "answered"
    if any(r.status in ("ANSWERED", "PARTIAL") for r in results):
        return "partial"
    return "abstained"


def replay_id(binding: Binding, questions: Sequence[str]) -> str:
    """Equal ids: the same document versions bound for the same questions."""
    digest = hashlib.sha256(_REPLAY_VERSION.encode())
    for document in binding.documents:
        for part in (document.id, str(document.version), document.content_hash or ""):
            digest.update(part.encode() + b"\x00")
    for question in questions:
        digest.update(question.encode() + b"\x01")
    return "rvw_" + digest.hexdigest()[:24]
