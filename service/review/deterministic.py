"""The deterministic reviewer: each question judged from the bound text alone, without a model.

1. The bound documents are cut into sentences with exact offsets by the answer path's own cutter
   (service/answer/sentences.py: prose sentences, list items, table rows, Mermaid edges; code is
   never quoted; prompt residue and self-describing page text are unpublishable). A sentence the
   quote screen refuses (screening.py) is never a candidate.
2. The question is planned as any question is (service/pipeline/plan.py): its intent, compare
   operands and key terms.
3. Findings: a greedy cover of the key terms by whole sentences. The sentence that adds the most
   terms not yet covered (then the one with most terms, then the first in reading order) is
   taken, until no sentence adds a term or `max_findings` are taken. A term is found in a
   sentence by the sufficiency package's word rule (service/answer/sufficiency/terms.py: stems of
   Latin words, compact forms of CJK and compound terms), never inside another word: over whole
   documents, 'port' inside 'proportion' would cover questions the documents do not address.
4. Status, with AnswerSettings' named thresholds: the documents address the question only
   where one passage does (a paragraph read under its section heading). Over whole documents,
   with no retrieval ranking and no answerability gate to filter, terms scattered far apart
   ("hot" in a table, "oven" three sections on) would pass for an answer. So:
   - NOT_FOUND, with no findings, when the question asks for a kind of value (a weight, a
     duration; service/text/answer_types.py) that no sentence of the documents holds, or
     when no passage holds `PASSAGE_MIN_TERMS` of the key terms
     together (all of them for a shorter question) and `borderline_coverage` of them;
   - ANSWERED when one passage holds `sufficient_coverage` of them, the findings hold every one,
     and every need of the question is met;
   - PARTIAL otherwise, saying what is missing. The needs
   are the sufficiency review's own gates (service/answer/sufficiency) over the findings: steps
   for a how-to, a mechanism or consequence for a why, a defining sentence for a what-is, both
   sides of a comparison. A finding is read with its section heading for them ("Step 2: ..."
   headings make the sentences under them steps). No graph, no retrieval ranking and no
   embedding take part: the answerability gate, which needs them, is not applied.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import msgspec

from service.answer.sentences import EvidenceSentence, evidence_sentences
from service.answer.sufficiency import Gate, review_sufficiency
from service.answer.sufficiency.terms import has_term, stems
from service.pipeline.budgets import BUDGETS, Budget
from service.pipeline.context_pack import RagContextPack
from service.pipeline.evidence import Fragment
from service.pipeline.graph_context import GraphContext
from service.pipeline.plan import QueryPlan, plan_query
from service.review.model import Binding, Drop, Finding, QuestionReview, ReviewStatus
from service.review.resolver import ObservedIds
from service.review.screening import QuoteScreen
from service.settings import AnswerSettings
from service.text.answer_types import holds_instance

__all__ = [
    "PASSAGE_MIN_TERMS",
    "SentencePool",
    "best_passage",
    "cover_terms",
    "decide",
    "review_question",
    "sentence_pool",
    "terms_in",
]

# One shared word is no sign that a passage is about the question: it must hold at least two of
# its key terms together (a one-term question, that term).
PASSAGE_MIN_TERMS = 2
# What a question of each intent needs besides its key terms (the intent gate's requirement).
_INTENT_NEEDS = {
    "how_to": "steps",
    "causal": "a mechanism or consequence",
    "definition": "a defining sentence",
    "compare": "both sides of the comparison",
}
_OPERANDS = "compare operand"  # the coverage gate's detail when a compare side lacks support
# A review reads no graph: an available graph with empty windows makes the graph gate pass
# without claiming an outage.
_NO_GRAPH = GraphContext(
    available=True, anchor_id=None, anchor_title=None, anchor_reason="full-text review: no graph",
    degree={}, predecessors=(), successors=(), diagnostics=None, paths=(),
)  # fmt: skip


class SentencePool:
    """The candidate sentences of a binding (computed once per review, shared by its questions)
    and the number refused by the quote screen, by reason."""

    def __init__(self, sentences: Sequence[EvidenceSentence], screened: dict[str, int]) -> None:
        self.sentences = tuple(sentences)
        self.screened = dict(screened)


def sentence_pool(binding: Binding, screen: QuoteScreen) -> SentencePool:
    """Every publishable sentence of the bound documents, in reading order."""
    fragments = tuple(
        Fragment(
            id=f"bound:{d.id}", role="direct_support", document_id=d.id, path=d.path,
            heading_path=(), start_offset=0, end_offset=len(d.source), start_line=1,
            end_line=d.source.count("\n") + 1, text=d.source, citation_ids=(),
            source_boundary="full_document",
        )
        for d in binding.documents
    )  # fmt: skip
    rows = [
        {"paragraphId": p.id, "documentId": p.document_id, "kind": p.kind, "text": p.text,
         "startOffset": p.start_offset, "endOffset": p.end_offset, "startLine": p.start_line,
         "headingPath": list(p.heading_path), "documentVersion": d.version}
        for d in binding.documents for p in d.paragraphs
    ]  # fmt: skip
    pack = _pack(fragments, BUDGETS["base"])
    kept: list[EvidenceSentence] = []
    screened: dict[str, int] = {}
    for sentence in evidence_sentences(pack, rows):
        reason = "unpublishable" if not sentence.text else screen.reason(sentence.quote)
        if reason is None:
            kept.append(sentence)
        else:
            screened[reason] = screened.get(reason, 0) + 1
    return SentencePool(kept, screened)


def terms_in(text: str, terms: Iterable[str]) -> frozenset[str]:
    """The key terms found in `text` as words (by stem), or, for CJK and compound terms, by
    their compact form (the sufficiency package's rule)."""
    words = stems(text)
    return frozenset(t for t in terms if has_term(text, t, words))


def cover_terms(
    sentences: Sequence[EvidenceSentence], terms: Sequence[str], limit: int
) -> list[EvidenceSentence]:
    """Greedy cover of `terms` by whole sentences, at most `limit`, in reading order."""
    hits = [terms_in(s.text, terms) for s in sentences]
    chosen: list[int] = []
    covered: set[str] = set()
    while len(chosen) < limit:
        best = max(
            (i for i in range(len(sentences)) if i not in chosen and hits[i] - covered),
            key=lambda i: (len(hits[i] - covered), len(hits[i]), -i),
            default=None,
        )
        if best is None:
            break
        chosen.append(best)
        covered |= hits[best]
    return [sentences[i] for i in sorted(chosen)]


def decide(
    passage: int, terms: int, coverage: float, needs_met: bool, settings: AnswerSettings
) -> ReviewStatus:
    """The status from the most key terms one passage holds (of `terms`), the findings' share
    of them, and whether the question's needs (intent, compare sides) are met."""
    share = passage / terms if terms else 0.0
    if passage < min(PASSAGE_MIN_TERMS, terms) or share < settings.borderline_coverage:
        return "NOT_FOUND"
    if share < settings.sufficient_coverage or coverage < 1.0 or not needs_met:
        return "PARTIAL"
    return "ANSWERED"


def best_passage(binding: Binding, terms: Sequence[str]) -> int:
    """The most of `terms` one bound paragraph holds, read under its section heading."""
    return max(
        (len(terms_in("\n".join((*p.heading_path[-1:], p.text)), terms))
         for d in binding.documents for p in d.paragraphs),
        default=0,
    )  # fmt: skip


def review_question(
    question: str,
    binding: Binding,
    pool: SentencePool,
    resolver: ObservedIds,
    *,
    settings: AnswerSettings,
    max_findings: int,
) -> QuestionReview:
    plan = plan_query(question, binding.scope)
    trace: dict[str, Any] = {"intent": plan.intent, "terms": list(plan.terms)}
    if not plan.terms:
        trace["reasons"] = ["the question has no key terms to look for"]
        return _result(question, "NOT_FOUND", (), (), trace)
    chosen = cover_terms(pool.sentences, plan.terms, max_findings)
    covered = frozenset().union(*(terms_in(s.text, plan.terms) for s in chosen))
    missing = tuple(t for t in plan.terms if t not in covered)
    coverage = len(covered) / len(plan.terms)
    gates = _needs(plan, covered, chosen, settings) if chosen else ()
    unmet = tuple(_unmet(plan, g) for g in gates if not g.passed)
    passage = best_passage(binding, plan.terms)
    status = decide(passage, len(plan.terms), coverage, not unmet, settings)
    kind = plan.answer_type
    if (
        kind
        and kind.name != "yes_no"
        and not any(holds_instance(s.text, kind) for s in pool.sentences)
    ):
        # "How much does it weigh?" over pages that give no weight at all: nothing answers it.
        status, unmet = "NOT_FOUND", (*unmet, f"the {kind.noun} asked for")
    trace.update({
        "sentencesChosen": len(chosen), "coverage": round(coverage, 3),
        "bestPassageTerms": passage,
        "coveredTerms": [t for t in plan.terms if t in covered], "missingTerms": list(missing),
        "thresholds": {"sufficientCoverage": settings.sufficient_coverage,
                       "borderlineCoverage": settings.borderline_coverage,
                       "passageMinTerms": PASSAGE_MIN_TERMS},
        "gates": [{"name": g.name, "passed": g.passed, "detail": g.detail} for g in gates],
    })  # fmt: skip
    findings: list[Finding] = []
    drops: list[Drop] = []
    if status != "NOT_FOUND":
        for sentence in chosen:
            paragraph = resolver.paragraphs.get(sentence.paragraph_id)
            at = sentence.start - paragraph.start_offset if paragraph else None
            resolved = resolver.resolve(sentence.paragraph_id, sentence.quote, at)
            if isinstance(resolved, Finding):
                findings.append(resolved)
            else:
                drops.append(resolved)
    if drops:  # the cutter and the binding disagree: never expected, always visible
        trace["dropped"] = [{"reason": d.reason, "paragraphId": d.paragraph_id} for d in drops]
    if status != "NOT_FOUND" and not findings:
        status = "NOT_FOUND"
    return _result(question, status, tuple(findings),
                   (*missing, *unmet) if status != "ANSWERED" else (), trace)  # fmt: skip


def _needs(
    plan: QueryPlan,
    covered: frozenset[str],
    chosen: Sequence[EvidenceSentence],
    settings: AnswerSettings,
) -> tuple[Gate, ...]:
    """The sufficiency review's gates for what the question needs beyond its key terms, over
    the findings (each read under its section heading). Its term coverage is the review's own
    (above): the plan it gets names the covered terms only, so its coverage gate can fail for a
    compare side alone."""
    asked = msgspec.structs.replace(plan, terms=tuple(t for t in plan.terms if t in covered))
    review = review_sufficiency(asked, _evidence(chosen), _NO_GRAPH, named={}, settings=settings)
    # A comparison's intent gate is its compare sides: read them from the coverage gate.
    wanted = "direct_evidence_coverage" if plan.intent == "compare" else "query_intent_coverage"
    return tuple(
        msgspec.structs.replace(g, name="compare_sides", detail=_operand_detail(g.detail))
        if g.name == "direct_evidence_coverage" else g
        for g in review.gates if g.name == wanted
    )  # fmt: skip


def _operand_detail(detail: str) -> str:
    """The compare-side part of the coverage gate's detail."""
    parts = [p for p in detail.split("; ") if _OPERANDS in p]
    return parts[0] if parts else detail


def _unmet(plan: QueryPlan, gate: Gate) -> str:
    """What a failed need adds to `missing`: the compare side as the question wrote it, or what
    the intent needs."""
    if gate.name == "compare_sides":
        sides = [o for o in plan.operands if o in gate.detail]
        return "compare side: " + ", ".join(sides) if sides else _INTENT_NEEDS["compare"]
    return _INTENT_NEEDS.get(plan.intent, gate.detail)


def _result(
    question: str,
    status: ReviewStatus,
    findings: tuple[Finding, ...],
    missing: tuple[str, ...],
    trace: dict[str, Any],
) -> QuestionReview:
    return QuestionReview(question=question, status=status, findings=findings,
                          missing=tuple(dict.fromkeys(missing)), method="deterministic",
                          trace={**trace, "status": status})  # fmt: skip


def _evidence(chosen: Sequence[EvidenceSentence]) -> RagContextPack:
    """The chosen sentences as the direct support of a context pack, each with its citation and
    read under its section heading."""
    fragments = tuple(
        Fragment(
            id=s.citation_id, role="direct_support", document_id=s.document_id, path=s.path,
            heading_path=s.heading_path, start_offset=s.start, end_offset=s.end,
            start_line=s.line, end_line=s.end_line,
            text="\n".join((*s.heading_path[-1:], s.text)), citation_ids=(s.citation_id,),
        )
        for s in chosen
    )  # fmt: skip
    chars = sum(len(f.text) for f in fragments)
    budget = Budget(profile="base", fragments=max(1, len(fragments)),
                    fragment_chars=max([1, *(len(f.text) for f in fragments)]),
                    total_chars=max(1, chars))  # fmt: skip
    return _pack(fragments, budget)


def _pack(fragments: tuple[Fragment, ...], budget: Budget) -> RagContextPack:
    return RagContextPack(
        replay_id="", budget=budget, fragments=fragments, decisions=(),
        total_chars=sum(len(f.text) for f in fragments), source_boundary="full_document",
    )  # fmt: skip
