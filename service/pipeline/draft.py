"""The interim answer stages: an extractive draft from direct support, a deterministic coverage
review and the failure-stage classification.

These keep every response field of DESIGN.md filled until the sufficiency review, the
profile composers and the release review (the answers issue) replace them. Their trace
entries say `method: "coverage_v0"` / `"extractive_v0"` so nobody mistakes them for the real
gates.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ingest.relation_labels import compact_key
from service.pipeline.evidence import Fragment, SourceDecision
from service.pipeline.plan import QueryPlan

__all__ = ["classify_failures", "draft_answer", "review_coverage"]

_SUFFICIENT_COVERAGE = 0.6
_BORDERLINE_COVERAGE = 0.3
_DRAFT_SPANS = 3
_MARKDOWN = re.compile(r"[*_`>#|]+")


def review_coverage(plan: QueryPlan, fragments: Sequence[Fragment]) -> dict[str, Any]:
    direct = " ".join(f.text.lower() for f in fragments if f.role == "direct_support")
    compact = compact_key(direct)
    terms = plan.terms or ()
    # Compact matching: 'waterglass' is covered by 'water glass', 'Water-Glass' likewise.
    covered = [t for t in terms if t in direct or compact_key(t) in compact]
    coverage = len(covered) / len(terms) if terms else (1.0 if direct else 0.0)
    if not direct:
        status, degradation = "insufficient", "insufficient_evidence"
    elif coverage >= _SUFFICIENT_COVERAGE:
        status, degradation = "sufficient", "none"
    elif coverage >= _BORDERLINE_COVERAGE:
        status, degradation = "borderline", "partial_coverage"
    else:
        status, degradation = "insufficient", "insufficient_evidence"
    return {
        "method": "coverage_v0",
        "status": status,
        "degradation": degradation,
        "score": round(coverage, 3),
        "reasons": [f"direct support covers {len(covered)} of {len(terms)} key terms"],
        "coveredTerms": covered,
    }


def draft_answer(fragments: Sequence[Fragment]) -> str:
    """The best distinct direct-support spans, in pack order, as plain sentences."""
    seen: set[str] = set()
    parts: list[str] = []
    direct = [f for f in fragments if f.role == "direct_support"]
    # Prose first: a table row or a code line makes a poor first sentence.
    prose = [f for f in direct if not f.text.lstrip().startswith(("|", "```", "    "))]
    for fragment in prose or direct:
        text = " ".join(_MARKDOWN.sub(" ", fragment.text).split())
        if text and text not in seen:
            seen.add(text)
            parts.append(text)
        if len(parts) == _DRAFT_SPANS:
            break
    return " ".join(parts)


def classify_failures(
    hits: int,
    decisions: Sequence[SourceDecision],
    graph_error: str | None,
) -> list[dict[str, str]]:
    stages: list[dict[str, str]] = []
    if hits == 0:
        stages.append({"stage": "retrieval", "reason": "no paragraph matched in the scope"})
    budget = [d for d in decisions if d.status in ("fragment_truncated", "fragment_dropped")]
    if budget:
        stages.append(
            {"stage": "context_assembly", "reason": f"{len(budget)} fragments truncated or dropped"}
        )
    missing = [d for d in decisions if d.status == "source_window_unavailable"]
    if missing or graph_error:
        reason = graph_error or f"{len(missing)} neighbour source windows unavailable"
        stages.append({"stage": "graph_evidence", "reason": reason})
    return stages
