"""The one recovery pass: wider reading of the same retrieval, never a loop.

`recovery_settings` widens the first pass's PipelineSettings (local windows, one more graph
neighbour per direction, more parent sections) and `recovery_policy` holds more of the pack for
parent and neighbour context than for direct support. The runner re-runs graph context,
augmentation and the pack with them exactly once; `should_recover` is false for a second pass by
construction (it needs `passes_done < recovery_passes`, and more than one pass is refused).
"""

from __future__ import annotations

from collections import Counter

import msgspec

from service.answer.sufficiency import SufficiencyReview
from service.pipeline.context_pack import DEFAULT_PACK_POLICY, PackPolicy, RagContextPack
from service.settings import AnswerSettings, PipelineSettings

__all__ = [
    "MAX_RECOVERY_PASSES",
    "decision_counts",
    "recovery_policy",
    "recovery_settings",
    "should_recover",
]

MAX_RECOVERY_PASSES = 1


def should_recover(review: SufficiencyReview, passes_done: int, settings: AnswerSettings) -> bool:
    if settings.recovery_passes > MAX_RECOVERY_PASSES:
        raise ValueError(f"at most {MAX_RECOVERY_PASSES} recovery pass is allowed")
    return passes_done < settings.recovery_passes and (
        review.recoverable
        or (
            any(r.startswith("llm_judge_failed") for r in review.reasons)
            and review.status != "sufficient"
            and review.degradation == "partial_coverage"
        )
    )


def recovery_settings(first: PipelineSettings, settings: AnswerSettings) -> PipelineSettings:
    widen = settings.recovery_window_paragraphs
    more = settings.recovery_graph_neighbours
    return msgspec.structs.replace(
        first,
        window_paragraphs=first.window_paragraphs + widen,
        window_paragraphs_wide=first.window_paragraphs_wide + widen,
        window_paragraphs_structured=first.window_paragraphs_structured + 1,
        graph_window=first.graph_window + more,
        graph_window_deep=first.graph_window_deep + more,
        parent_sections=first.parent_sections + settings.recovery_parent_sections,
    )


def recovery_policy(settings: AnswerSettings) -> PackPolicy:
    share = settings.recovery_reserve_share
    return msgspec.structs.replace(DEFAULT_PACK_POLICY, reserve_share=share)


def decision_counts(pack: RagContextPack) -> dict[str, int]:
    counts = Counter(d.status for d in pack.decisions)
    return {
        status: counts.get(status, 0)
        for status in (
            "included",
            "fragment_truncated",
            "fragment_dropped",
            "source_window_unavailable",
        )
    }
