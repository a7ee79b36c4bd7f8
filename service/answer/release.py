"""review_release: deterministic gates on a draft before it becomes the public answer.

Gates: evidence_sufficiency, graph_support, query_intent_alignment, structured_contradiction,
graph_order_consistency, causal_consistency, comparison_consistency, temporal_validity,
diagnostic_leakage, prompt_injection_relay (no sentence is an instruction to a model or carries an
output such an instruction in the pack or the draft demands; service/answer/injection/),
sentence_relevance (every sentence about the question, in its or its page's language, links only
where they answer; service/answer/relevance.py), abstention_hygiene, rag_answer_completeness
(profile-specific) and rag_claim_citation_support
(each sentence supported by citation-backed evidence).

A failing draft is never released as is: `release` revises it from the pack (removes unsupported,
leaking, artifact or injection sentences; adds the profile's missing pack-backed sentences, never
an injection one), reviews the revision once, and contracts it to its supported sentences when
that still fails. Each removal is a decision in the review (sentence, reason: the gate, or
injection_instruction / injection_demanded_output). With or without an LLM, every answer passes
here, so injection text in the sources is never relayed into an answer.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from typing import Literal

import msgspec

from service.answer.claims import map_claims
from service.answer.composer import Draft, DraftSentence, as_draft, select
from service.answer.injection import Finding, InjectionScan, scan_texts, screen_sentence
from service.answer.relevance import off_question
from service.answer.sentences import EvidenceSentence, is_artifact, leaks_diagnostics
from service.answer.sufficiency import SufficiencyReview
from service.pipeline.context_pack import RagContextPack
from service.pipeline.graph_context import GraphContext
from service.pipeline.plan import QueryPlan
from service.settings import AnswerSettings
from service.text.relation_labels import compact_key

__all__ = ["GateResult", "ReleaseDecision", "ReleaseReview", "release", "review_release"]

Action = Literal["released", "revised", "contracted", "abstained"]
_PREREQ_SLOTS = ("prerequisite",)
_UNSUPPORTED = ("unsupported",)


class GateResult(msgspec.Struct, frozen=True, kw_only=True):
    gate: str
    passed: bool
    detail: str
    sentences: tuple[int, ...] = ()  # offending sentence positions


class ReleaseDecision(msgspec.Struct, frozen=True, kw_only=True):
    """One sentence taken out of the draft, and why."""

    text: str
    reason: str  # the failing gate, or injection_instruction / injection_demanded_output
    output: str = ""  # injection_demanded_output: the demanded output the sentence carries


class ReleaseReview(msgspec.Struct, frozen=True, kw_only=True):
    method: str
    action: Action
    passed: bool  # the released draft passes every gate
    gates: tuple[GateResult, ...]  # of the released draft
    failed_gates: tuple[str, ...]  # of the first draft (what revision had to fix)
    removed: tuple[str, ...]  # sentences taken out
    added: tuple[str, ...]  # sentences added from the pack
    decisions: tuple[ReleaseDecision, ...] = ()  # each removal with its reason


def review_release(
    draft: Draft,
    plan: QueryPlan,
    pack: RagContextPack,
    pool: Sequence[EvidenceSentence],
    review: SufficiencyReview,
    context: GraphContext,
    *,
    settings: AnswerSettings,
    abstaining: bool = False,
) -> list[GateResult]:
    sentences = draft.sentences
    text = draft.text
    gates: list[GateResult] = []

    gates.append(GateResult(
        gate="evidence_sufficiency",
        passed=abstaining or (review.status != "insufficient" and bool(sentences)),
        detail=f"sufficiency {review.status}, {len(sentences)} sentences",
    ))  # fmt: skip

    missing_neighbours = [d for d in pack.decisions if d.status == "source_window_unavailable"]
    known = {compact_key(n.title) for n in (*context.predecessors, *context.successors)}
    graph_claims = [
        i for i, s in enumerate(sentences)
        if s.kind == "evidence" and s.evidence and s.evidence[0].role == "graph_neighbor_support"
        and s.evidence[0].knowledge_point_id is None
    ]  # fmt: skip
    gates.append(GateResult(
        gate="graph_support",
        passed=not graph_claims
        and (not missing_neighbours or _has_caveat(sentences) or abstaining),
        detail=f"{len(missing_neighbours)} neighbours without source text; "
        f"{len(known)} neighbours in the windows",
        sentences=tuple(graph_claims),
    ))  # fmt: skip

    aligned = abstaining or _intent_aligned(draft, plan, pool)
    gates.append(
        GateResult(
            gate="query_intent_alignment",
            passed=aligned,
            detail=f"profile {draft.profile} for intent {plan.intent}",
        )
    )

    conflict_fragments = [f for f in pack.fragments if f.role == "conflict"]
    has_conflict_line = any(s.kind == "conflict" for s in sentences)
    gates.append(GateResult(
        gate="structured_contradiction",
        passed=not conflict_fragments or has_conflict_line or abstaining,
        detail=f"{len(conflict_fragments)} conflict fragments; "
        f"{'stated' if has_conflict_line else 'not stated'} in the draft",
    ))  # fmt: skip

    steps = [s.evidence[0].step for s in sentences if s.slot == "step" and s.evidence]
    ordered = all(a is not None and b is not None and a < b for a, b in itertools.pairwise(steps))
    gates.append(
        GateResult(
            gate="graph_order_consistency",
            passed=ordered or len(steps) < 2,
            detail=f"steps in order: {steps}",
        )
    )

    causal_bad = [
        i for i, s in enumerate(sentences)
        if s.slot == "graph" and s.evidence
        and not re.search("CAUSES|ENABLES", s.evidence[0].relation or "")
        and draft.profile == "causal_explain"
    ]  # fmt: skip
    gates.append(
        GateResult(
            gate="causal_consistency",
            passed=not causal_bad,
            detail="causal graph claims come from CAUSES/ENABLES relations",
            sentences=tuple(causal_bad),
        )
    )

    sides_ok = True
    if draft.profile == "compare" and not abstaining:
        sides = {s.slot for s in sentences}
        sides_ok = all(f"operand_{i}" in sides for i in range(len(plan.operands) or 1))
    gates.append(
        GateResult(
            gate="comparison_consistency",
            passed=sides_ok,
            detail="each compared side has its own evidence sentence"
            if sides_ok
            else "a compared side has no evidence sentence",
        )
    )

    stale_ok = not review.stale or abstaining or any(s.slot == "stale" for s in sentences)
    gates.append(
        GateResult(
            gate="temporal_validity", passed=stale_ok, detail=f"{len(review.stale)} stale documents"
        )
    )

    leaking = [
        i for i, s in enumerate(sentences) if leaks_diagnostics(s.text) or is_artifact(s.text)
        or "```" in s.text or "-->" in s.text
    ]  # fmt: skip
    gates.append(
        GateResult(
            gate="diagnostic_leakage",
            passed=not leaking,
            detail=f"{len(leaking)} sentences with internal names, prompt residue or fenced blocks",
            sentences=tuple(leaking),
        )
    )

    scan = _injection_scan(draft, pack)
    relaying = _injection_findings(sentences, scan)
    gates.append(GateResult(
        gate="prompt_injection_relay",
        passed=not relaying,
        detail=f"{len(relaying)} sentences relay injection text; {len(scan.sentences)} "
        f"instruction sentences and {len(scan.outputs)} demanded outputs in the pack and draft",
        sentences=tuple(sorted(relaying)),
    ))  # fmt: skip

    pages: dict[str, str] = {}
    for fragment in pack.fragments:
        pages[fragment.document_id] = pages.get(fragment.document_id, "") + "\n" + fragment.text
    off = {} if abstaining else off_question(sentences, plan, pages)
    gates.append(GateResult(
        gate="sentence_relevance",
        passed=not off,
        detail="every sentence is about the question, in its or its page's language"
        if not off else "; ".join(f"sentence {i}: {why}" for i, why in sorted(off.items())),
        sentences=tuple(sorted(off)),
    ))  # fmt: skip

    evidence_count = sum(1 for s in sentences if s.kind != "caveat")
    hygiene = (evidence_count == 0) if abstaining else bool(sentences) and not re.search(
        r"\bI (?:found|have) no evidence\b", text)  # fmt: skip
    gates.append(
        GateResult(
            gate="abstention_hygiene",
            passed=hygiene,
            detail="abstention carries no claims"
            if abstaining
            else "an answer does not read as an abstention",
        )
    )

    missing = [] if abstaining else _missing_dimensions(draft, plan, pool, settings)
    gates.append(
        GateResult(
            gate="rag_answer_completeness",
            passed=not missing,
            detail="missing pack-backed " + ", ".join(missing)
            if missing
            else f"{draft.profile} profile complete",
        )
    )

    claims = map_claims(sentences, {f.id: f.text for f in pack.fragments})
    weak = [
        c.index for c in claims
        if c.status in _UNSUPPORTED and sentences[c.index].kind != "caveat"
    ]  # fmt: skip
    gates.append(
        GateResult(
            gate="rag_claim_citation_support",
            passed=not weak,
            detail=f"{len(weak)} of {len(claims)} claims unsupported by cited evidence",
            sentences=tuple(weak),
        )
    )
    return gates


def release(
    draft: Draft,
    plan: QueryPlan,
    pack: RagContextPack,
    pool: Sequence[EvidenceSentence],
    review: SufficiencyReview,
    context: GraphContext,
    *,
    settings: AnswerSettings,
    abstaining: bool = False,
) -> tuple[Draft, ReleaseReview]:
    scan = _injection_scan(draft, pack)
    if scan.sentences or scan.outputs:
        # Revision must not bring an injection sentence back from the pool, and a profile
        # dimension only an injection sentence fills is not one the pack backs.
        pool = [e for e in pool if _evidence_finding(e, scan) is None]
    first = review_release(
        draft, plan, pack, pool, review, context, settings=settings, abstaining=abstaining
    )
    failed = tuple(g.gate for g in first if not g.passed)
    if not failed:
        return draft, ReleaseReview(method="release_gates_v1", action="abstained" if abstaining
                                    else "released", passed=True, gates=tuple(first),
                                    failed_gates=(), removed=(), added=())  # fmt: skip
    bad = {i for g in first if not g.passed for i in g.sentences}
    decisions = _decisions(draft.sentences, first, scan)
    kept = [s for i, s in enumerate(draft.sentences) if i not in bad]
    removed = tuple(s.text for i, s in enumerate(draft.sentences) if i in bad)
    added: list[DraftSentence] = []
    if "rag_answer_completeness" in failed or "prompt_injection_relay" in failed:
        present = {e.citation_id for s in kept for e in s.evidence}
        for slot, sentence in select(draft.profile, plan, pool, settings):
            if sentence.citation_id not in present and slot in _missing_dimensions(
                Draft(profile=draft.profile, sentences=tuple(kept + added)), plan, pool, settings
            ):
                added.extend(as_draft([(slot, sentence)]))
    revised = Draft(profile=draft.profile, sentences=tuple(kept + added))
    second = review_release(
        revised, plan, pack, pool, review, context, settings=settings, abstaining=abstaining
    )
    action: Action = "revised"
    if any(not g.passed for g in second):
        # Contract: only sentences every gate accepts.
        still = {i for g in second if not g.passed for i in g.sentences}
        decisions += _decisions(revised.sentences, second, scan)
        revised = Draft(
            profile=draft.profile,
            sentences=tuple(s for i, s in enumerate(revised.sentences) if i not in still),
        )
        second = review_release(
            revised, plan, pack, pool, review, context, settings=settings, abstaining=abstaining
        )
        action = "contracted"
    return revised, ReleaseReview(
        method="release_gates_v1",
        action="abstained" if abstaining else action,
        passed=all(g.passed for g in second),
        gates=tuple(second),
        failed_gates=failed,
        removed=removed,
        added=tuple(s.text for s in added),
        decisions=decisions,
    )


def _injection_scan(draft: Draft, pack: RagContextPack) -> InjectionScan:
    """Instructions and demanded outputs anywhere in what the draft may quote (every pack
    fragment) and in the draft itself (its sentences and their source quotes)."""
    texts = [f.text for f in pack.fragments]
    for sentence in draft.sentences:
        texts.append(sentence.text)
        texts.extend(e.quote for e in sentence.evidence)
    return scan_texts(texts)


def _injection_findings(
    sentences: Sequence[DraftSentence], scan: InjectionScan
) -> dict[int, Finding]:
    keys = scan.keys
    found = {}
    for i, sentence in enumerate(sentences):
        quotes = tuple(e.quote for e in sentence.evidence)
        finding = screen_sentence(sentence.text, quotes, scan, keys=keys)
        if finding is not None:
            found[i] = finding
    return found


def _evidence_finding(evidence: EvidenceSentence, scan: InjectionScan) -> Finding | None:
    return screen_sentence(evidence.text or evidence.quote, (evidence.quote,), scan)


def _decisions(
    sentences: Sequence[DraftSentence], gates: Sequence[GateResult], scan: InjectionScan
) -> tuple[ReleaseDecision, ...]:
    """Why each sentence a failing gate points at is removed: the injection finding when there is
    one (an injected "ignore previous instructions" is also prompt residue for
    diagnostic_leakage, but the injection is the reason), else the first failing gate."""
    failing = [g for g in gates if not g.passed]
    findings = (
        _injection_findings(sentences, scan)
        if any(g.gate == "prompt_injection_relay" for g in failing)
        else {}
    )
    decisions = []
    for i in sorted({i for g in failing for i in g.sentences if i < len(sentences)}):
        finding = findings.get(i)
        gate = next(g.gate for g in failing if i in g.sentences)
        decisions.append(ReleaseDecision(
            text=sentences[i].text,
            reason=finding.reason if finding else gate,
            output=finding.output if finding else "",
        ))  # fmt: skip
    return tuple(decisions)


def _has_caveat(sentences: Sequence[DraftSentence]) -> bool:
    return any(s.kind == "caveat" and s.slot == "graph_limitation" for s in sentences)


def _intent_aligned(draft: Draft, plan: QueryPlan, pool: Sequence[EvidenceSentence]) -> bool:
    evidence = [s for s in draft.sentences if s.kind != "caveat"]
    if not evidence:
        return False
    if draft.profile == "how_to" and any(s.procedure_step is not None for s in pool):
        return any(s.slot == "procedure" for s in draft.sentences)
    if draft.profile == "how_to" and any(s.step is not None for s in pool):
        return any(s.slot == "step" for s in draft.sentences)
    return True


def _missing_dimensions(
    draft: Draft, plan: QueryPlan, pool: Sequence[EvidenceSentence], settings: AnswerSettings
) -> list[str]:
    """Profile dimensions the pack backs but the draft omits."""
    wanted = {slot for slot, _ in select(draft.profile, plan, pool, settings)}
    have = {s.slot for s in draft.sentences}
    dims: tuple[str, ...]
    if draft.profile == "how_to":
        dims = ("prerequisite", "step", "failure", "procedure")
    elif draft.profile == "causal_explain":
        dims = ("mechanism", "consequence")
    else:
        return []
    return [d for d in dims if d in wanted and d not in have]
