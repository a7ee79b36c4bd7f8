"""The interim answer stages: an extractive draft from direct support, a deterministic coverage
review and the failure-stage classification.

These keep every response field of DESIGN.md filled until the sufficiency review, the
profile composers and the release review (the answers issue) replace them. Their trace
entries say `method: "coverage_v0"` / `"extractive_v0"` so nobody mistakes them for the real
gates.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ingest.relation_labels import compact_key
from service.pipeline.evidence import Fragment, SourceDecision
from service.pipeline.plan import QueryPlan

__all__ = ["classify_failures", "draft_answer", "review_coverage"]

_SUFFICIENT_COVERAGE = 0.6
_BORDERLINE_COVERAGE = 0.3
_DRAFT_SPANS = 3
_MARKDOWN = re.compile(r"[*_`>#|]+")


def review_coverage(
    plan: QueryPlan,
    fragments: Sequence[Fragment],
    named: Mapping[str, str] | None = None,
    decisions: Sequence[SourceDecision] = (),
) -> dict[str, Any]:
    """`named` maps the compact form of each knowledge-point name found in the question to its
    id: a term naming a knowledge point is covered by that knowledge point's direct support
    (水玻璃 is covered by the Water glass document, whatever language it is written in)."""
    direct_fragments = [f for f in fragments if f.role == "direct_support"]
    direct = " ".join(f.text.lower() for f in direct_fragments)
    compact = compact_key(direct)
    supported = {f.knowledge_point_id for f in direct_fragments}
    terms = plan.terms or ()
    # Compact matching: 'waterglass' is covered by 'water glass', 'Water-Glass' likewise.
    covered = [
        t for t in terms
        if t in direct or compact_key(t) in compact
        or any(name in compact_key(t) and kp in supported for name, kp in (named or {}).items())
    ]  # fmt: skip
    coverage = len(covered) / len(terms) if terms else (1.0 if direct else 0.0)
    if not direct:
        status, degradation = "insufficient", "insufficient_evidence"
    elif coverage >= _SUFFICIENT_COVERAGE:
        status, degradation = "sufficient", "none"
    elif coverage >= _BORDERLINE_COVERAGE:
        status, degradation = "borderline", "partial_coverage"
    else:
        status, degradation = "insufficient", "insufficient_evidence"
    reasons = [f"direct support covers {len(covered)} of {len(terms)} key terms"]
    lost = [d for d in decisions if d.status == "source_window_unavailable"]
    if lost and status == "sufficient":
        # A neighbour known only by title cannot satisfy graph evidence (specification Unit 5).
        status, degradation = "borderline", "partial_coverage"
    if lost:
        reasons.append(f"graph_neighbor_evidence_missing: {len(lost)} neighbour source windows")
    return {
        "method": "coverage_v0",
        "status": status,
        "degradation": degradation,
        "score": round(coverage, 3),
        "reasons": reasons,
        "coveredTerms": covered,
    }


def draft_answer(fragments: Sequence[Fragment]) -> str:
    """The best distinct direct-support spans, in pack order, as plain sentences."""
    seen: set[str] = set()
    parts: list[str] = []
    direct = [f for f in fragments if f.role == "direct_support"]
    # Prose first: a table row or a code line makes a poor first sentence.
    prose = [f for f in direct if not f.text.lstrip().startswith(("|", "```", "    "))] or direct
    # Round-robin over knowledge points, so a comparison speaks about both operands.
    by_point: dict[str | None, list[Fragment]] = {}
    for fragment in prose:
        by_point.setdefault(fragment.knowledge_point_id, []).append(fragment)
    queues = list(by_point.values())
    ordered = [q[i] for i in range(max(map(len, queues), default=0)) for q in queues if i < len(q)]
    for fragment in ordered:
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
    if missing:
        stages.append(
            {"stage": "parsing_source", "reason": f"{len(missing)} source windows unavailable"}
        )
    if missing or graph_error:
        reason = graph_error or f"{len(missing)} neighbour source windows unavailable"
        stages.append({"stage": "graph_evidence", "reason": reason})
    return stages
