"""review_sufficiency: the deterministic gates deciding whether a context pack can carry an answer.

Gates (each passes or fails with a score in [0, 1] and a plain reason):
- direct_evidence_coverage: the question's key terms (and compare operands) in direct support; a
  term naming a knowledge point is covered by that knowledge point's direct support;
- answerability: a logistic score with named weights over AnswerabilityFeatures of the best
  hit paragraph (its cosine, its topic's cosine, its best sentences' cosines, the residual
  cosine of its sentences to what the question asks beyond its subject, key-term coverage, the
  expected answer type, channel agreement, the margin over other documents); the inputs go to
  the trace;
- query_intent_coverage: a how_to needs steps, a causal question mechanism or consequence, a
  compare both sides, a definition a defining sentence;
- graph_support: neighbours in the graph windows must come with their own source text;
- citation_availability: every direct fragment carries citation ids;
- budget_compliance: the pack stays within its budget (dropped direct support is noted);
- conflict: conflict fragments in the pack;
- temporal_validity: cited documents past validUntil or superseded.

Status: insufficient (no direct support, answerability or coverage too low) > conflict > stale >
partial coverage > sufficient. `recoverable` says whether one wider pass could help.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Mapping, Sequence
from typing import Literal

import msgspec

from ingest.relation_labels import compact_key
from service.pipeline.budgets import AnswerSettings
from service.pipeline.context_pack import RagContextPack
from service.pipeline.evidence import Fragment
from service.pipeline.graph_context import GraphContext
from service.pipeline.plan import QueryPlan

__all__ = [
    "AnswerabilityFeatures",
    "DocumentValidity",
    "EvidenceSupport",
    "Gate",
    "SufficiencyReview",
    "answerability_features",
    "cosine",
    "residual_cosines",
    "review_sufficiency",
    "stale_documents",
]

Status = Literal["sufficient", "borderline", "insufficient"]
Degradation = Literal[
    "none", "partial_coverage", "conflict", "stale_evidence", "insufficient_evidence"
]

_STEPS = re.compile(
    r"(?im)^\s*(?:[-*+]\s*)?(?:\**step\s*\d+|\d{1,2}[.)]\s)|\b(?:first|then|next|finally)\b,?"
)
_CAUSAL = re.compile(
    r"\b(?:because|cause[sd]?|leads? to|led to|results? in|resulting|so that|therefore|thus|"
    r"mechanism|consequence|as a result|due to|which means|triggers?|prevents?|makes? it)\b|"
    r"导致|因为|所以|因此|机制",
    re.IGNORECASE,
)
_CONSEQUENCE_HEADING = re.compile(r"\b(?:consequences?|effects?|results?|outcomes?)\b", re.I)
_DEFINES = re.compile(
    r"\b(?:is|are|was|were|refers to|means|denotes|describes)\b|是|指", re.IGNORECASE
)


class Gate(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    passed: bool
    score: float
    detail: str


class DocumentValidity(msgspec.Struct, frozen=True, kw_only=True):
    document_id: str
    path: str
    updated: str | None = None
    valid_until: str | None = None
    superseded_by: str | None = None


class EvidenceSupport(msgspec.Struct, frozen=True, kw_only=True):
    """Signals from the stored paragraphs and the retrieval ranking, read once per question."""

    cosine: Mapping[str, float] = msgspec.field(default_factory=dict)  # paragraph id -> cosine
    sentence_cosine: float | None = None  # best sentence of the best hit paragraph
    # The best hit paragraph's embedded sentences and their cosines (same order); empty when
    # only sentence_cosine is known.
    sentences: tuple[str, ...] = ()
    sentence_cosines: tuple[float, ...] = ()
    topic: str = ""  # the best hit's document title and heading path (what it is about)
    topic_cosine: float | None = None  # that topic's own embedding to the question
    # Best cosine of the sentences, each embedded under its topic as paragraphs are, to the
    # question with the topic's direction removed (residual_cosines); None when not computed.
    residual_sentence_cosine: float | None = None
    fulltext_rank: int | None = None  # the best hit's rank in the full-text channel, if ranked
    vector_rank: int | None = None  # and in the vector channel
    other_document_cosine: float | None = None  # best cosine of a hit in another document


class AnswerabilityFeatures(msgspec.Struct, frozen=True, kw_only=True):
    """Inputs of the answerability score (each in [0, 1]), recorded in the trace."""

    paragraph_cosine: float  # best hit paragraph (its stored embedding) to the question
    # Its topic alone (title and headings): the part of the paragraph's match that only says
    # the page is about the question's subject (an unanswerable question's page often is).
    topic_cosine: float
    sentence_cosine: float  # its best sentence to the question
    second_sentence_cosine: float  # its second-best sentence (= best when it has one)
    # Does a sentence address what the question asks beyond naming the page's subject? The
    # question minus its topic direction against each sentence read under its topic (an
    # unanswerable question's passage names the subject but not the asked aspect); see _residual.
    residual_sentence_cosine: float
    sentence_coverage: float  # share of the key terms in the best sentence
    paragraph_coverage: float  # share of the key terms in the best paragraph
    off_topic_coverage: float  # key terms not in the title/headings that the paragraph has
    answer_type_missing: float  # 1: a when/how-many/who/where question, no such value near
    fulltext_agreement: float  # 1 / full-text rank of the best hit (0: not ranked there)
    vector_agreement: float  # 1 / vector rank of the best hit (0: not ranked there)
    document_margin: float  # best paragraph cosine minus the best one of another document
    # Per-question normalisation: how far the best paragraph and its best sentence stand out
    # from their own surroundings (a vague question is about equally near to everything).
    hits_lift: float  # best paragraph cosine minus the mean cosine of the other top-k hits
    sentence_lift: float  # best sentence cosine minus the mean of the paragraph's sentences
    best_hit_cosine: float  # the highest cosine of any top-k hit (fusion may rank it lower)


class SufficiencyReview(msgspec.Struct, frozen=True, kw_only=True):
    method: str
    status: Status
    degradation: Degradation
    score: float
    reasons: tuple[str, ...]
    gates: tuple[Gate, ...]
    covered_terms: tuple[str, ...]
    missing_terms: tuple[str, ...]
    recoverable: bool
    answerability: float | None  # probability-like score of the answerability gate
    answerability_inputs: dict[str, float] | None = None  # AnswerabilityFeatures, by name
    answerability_threshold: float = 0.0  # the gate's threshold (0: no gate)
    # Passed the gate but under the confident threshold: answered as partial, with a caveat.
    uncertain: bool = False
    stale: tuple[str, ...] = ()  # paths of stale cited documents


def review_sufficiency(
    plan: QueryPlan,
    pack: RagContextPack,
    context: GraphContext,
    *,
    named: Mapping[str, str],
    operand_points: Sequence[tuple[int, str]] = (),
    validity: Mapping[str, DocumentValidity] | None = None,
    support: EvidenceSupport | None = None,
    best_paragraph: tuple[str, str] | None = None,
    settings: AnswerSettings,
    today: dt.date | None = None,
) -> SufficiencyReview:
    """`named`: compact name -> knowledge point id of names found in the question;
    `operand_points`: (operand index, knowledge point id); `best_paragraph`: (paragraph id,
    text) of the best retrieval hit, for the answerability gate."""
    fragments = pack.fragments
    direct = [f for f in fragments if f.role == "direct_support"]
    gates: list[Gate] = []
    reasons: list[str] = []

    covered, missing = _coverage(plan, direct, named)
    terms = plan.terms
    coverage = len(covered) / len(terms) if terms else (1.0 if direct else 0.0)
    operands_ok, operand_detail = _operands(plan, direct, operand_points)
    gates.append(
        Gate(
            name="direct_evidence_coverage",
            passed=bool(direct) and coverage >= settings.sufficient_coverage and operands_ok,
            score=round(coverage, 3),
            detail=f"direct support covers {len(covered)} of {len(terms)} key terms"
            + (f"; missing: {', '.join(missing)}" if missing else "")
            + (f"; {operand_detail}" if operand_detail else ""),
        )
    )

    features = answerability_features(plan, best_paragraph, support)
    answerability = _answerability(features, settings)
    names_itself = _names_the_concept(plan, direct, named)
    if answerability is not None:
        passed = answerability >= settings.answerability_threshold or names_itself
        gates.append(
            Gate(
                name="answerability",
                passed=passed,
                score=round(answerability, 3),
                detail=f"best evidence supports the question with score {answerability:.2f} "
                f"(threshold {settings.answerability_threshold})"
                + ("; the question only names a concept its own document describes"
                   if names_itself else ""),
            )
        )  # fmt: skip

    uncertain = (
        answerability is not None
        and not names_itself
        and settings.answerability_threshold
        <= answerability
        < settings.answerability_confident_threshold
    )
    intent_ok, intent_detail = _intent(plan, fragments, direct, operands_ok)
    gates.append(
        Gate(name="query_intent_coverage", passed=intent_ok, score=1.0 if intent_ok else 0.0,
             detail=intent_detail)
    )  # fmt: skip

    lost = [d for d in pack.decisions if d.status == "source_window_unavailable"]
    window = (*context.predecessors, *context.successors)
    neighbours = len(window)
    with_text = sum(1 for f in fragments if f.role == "graph_neighbor_support")
    # A neighbour whose own document is already in the pack (the other side of a comparison,
    # read as direct support) is evidenced by that text.
    points = {f.knowledge_point_id for f in fragments}
    documents = {f.document_id for f in fragments}
    evidenced = sum(1 for n in window if n.id in points or n.document_id in documents)
    if not context.available:
        graph_ok, graph_detail = True, "graph unavailable: document-only context"
    elif lost:
        graph_ok = False
        graph_detail = (
            f"graph_neighbor_evidence_missing: {len(lost)} of {neighbours} neighbour source "
            "windows unavailable (known by title and relation only)"
        )
    elif neighbours and not evidenced:
        graph_ok, graph_detail = False, "graph_neighbor_evidence_missing: no neighbour text"
    else:
        graph_ok = True
        graph_detail = (
            f"{evidenced} of {neighbours} graph neighbours evidenced by text in the context "
            f"({with_text} neighbour fragments)"
        )
    gates.append(
        Gate(name="graph_support", passed=graph_ok,
             score=1.0 if graph_ok else (with_text / max(neighbours, 1)), detail=graph_detail)
    )  # fmt: skip

    citable = [f for f in direct if f.citation_ids]
    gates.append(
        Gate(
            name="citation_availability",
            passed=bool(direct) and len(citable) == len(direct),
            score=len(citable) / len(direct) if direct else 0.0,
            detail=f"{len(citable)} of {len(direct)} direct fragments carry citation ids",
        )
    )

    within = pack.total_chars <= pack.budget.total_chars and len(fragments) <= pack.budget.fragments
    squeezed = [
        d for d in pack.decisions
        if d.status in ("fragment_dropped", "fragment_truncated")
        and not d.reason.startswith(("duplicate_of", "unobserved", "empty"))
    ]  # fmt: skip
    squeezed_direct = [d for d in squeezed if d.role == "direct_support"]
    gates.append(
        Gate(
            name="budget_compliance",
            passed=within,
            score=1.0 if within else 0.0,
            detail=f"{pack.total_chars} of {pack.budget.total_chars} chars, {len(fragments)} of "
            f"{pack.budget.fragments} fragments; {len(squeezed)} truncated or dropped by the "
            f"budget ({len(squeezed_direct)} direct)",
        )
    )

    conflicts = [f for f in fragments if f.role == "conflict"]
    gates.append(
        Gate(
            name="conflict",
            passed=not conflicts,
            score=0.0 if conflicts else 1.0,
            detail=f"conflicting_evidence: {len(conflicts)} conflict fragments"
            if conflicts else "no conflicting evidence",
        )
    )  # fmt: skip

    stale = stale_documents(direct, validity or {}, today or dt.date.today())
    gates.append(
        Gate(
            name="temporal_validity",
            passed=not stale,
            score=0.0 if stale else 1.0,
            detail=("stale_evidence: " + "; ".join(stale.values())) if stale
            else "no cited document is expired or superseded",
        )
    )  # fmt: skip

    failed = {g.name for g in gates if not g.passed}
    status: Status
    degradation: Degradation
    if not direct:
        status, degradation = "insufficient", "insufficient_evidence"
        reasons.append("no direct evidence in scope")
    elif "answerability" in failed:
        status, degradation = "insufficient", "insufficient_evidence"
    elif conflicts:
        status, degradation = "borderline", "conflict"
    elif coverage < settings.borderline_coverage and answerability is None:
        # Without the (calibrated) answerability score, low term coverage is the best signal;
        # with it, low coverage only makes the answer partial (on ClapNQ half A this rule
        # declined 24 answerable questions for 11 unanswerable ones).
        status, degradation = "insufficient", "insufficient_evidence"
    elif stale:
        status, degradation = "borderline", "stale_evidence"
    elif uncertain or failed & {"direct_evidence_coverage", "query_intent_coverage",
                                 "graph_support"}:
        status, degradation = "borderline", "partial_coverage"
    else:
        status, degradation = "sufficient", "none"
    reasons.extend(f"{g.name}: {g.detail}" if not g.detail.startswith(
        ("graph_neighbor", "conflicting", "stale")) else g.detail
        for g in gates if not g.passed)  # fmt: skip
    if uncertain:
        reasons.append(
            f"answerability: {answerability:.2f} is under "
            f"{settings.answerability_confident_threshold}: the evidence may not answer exactly "
            "what is asked"
        )
    if not reasons:
        reasons.append("all sufficiency gates passed")
    recoverable = (
        status != "sufficient"
        and bool(direct)
        and degradation in ("partial_coverage", "insufficient_evidence")
        and "answerability" not in failed
        and bool(missing or squeezed or lost or not intent_ok or not operands_ok)
    )
    score = sum(g.score for g in gates) / len(gates)
    return SufficiencyReview(
        method="deterministic_gates_v1",
        status=status,
        degradation=degradation,
        score=round(score, 3),
        reasons=tuple(reasons),
        gates=tuple(gates),
        covered_terms=tuple(covered),
        missing_terms=tuple(missing),
        recoverable=recoverable,
        answerability=None if answerability is None else round(answerability, 4),
        answerability_inputs=_inputs(features),
        answerability_threshold=settings.answerability_threshold,
        uncertain=uncertain,
        stale=tuple(stale),
    )


def stale_documents(
    fragments: Sequence[Fragment], validity: Mapping[str, DocumentValidity], today: dt.date
) -> dict[str, str]:
    """path -> why, for the documents of `fragments` that are expired or superseded."""
    stale: dict[str, str] = {}
    for fragment in fragments:
        info = validity.get(fragment.document_id)
        if info is None or info.path in stale:
            continue
        if info.superseded_by:
            stale[info.path] = f"{info.path} is superseded by {info.superseded_by}"
        elif info.valid_until and _date(info.valid_until) and _date(info.valid_until) < today:  # type: ignore[operator]
            stale[info.path] = f"{info.path} was valid until {info.valid_until}"
    return stale


def _date(value: str) -> dt.date | None:
    try:
        return dt.date.fromisoformat(value[:10])
    except ValueError:
        return None


def _coverage(
    plan: QueryPlan, direct: Sequence[Fragment], named: Mapping[str, str]
) -> tuple[list[str], list[str]]:
    text = " ".join(f.text.lower() for f in direct)
    compact = compact_key(text)
    supported = {f.knowledge_point_id for f in direct}
    covered: list[str] = []
    missing: list[str] = []
    for term in plan.terms:
        key = compact_key(term)
        hit = (
            term in text
            or (key and key in compact)
            or any(name in key and kp in supported for name, kp in named.items())
            or (len(term) > 4 and term.isascii() and term[:-1] in text)  # plural/inflection
        )
        (covered if hit else missing).append(term)
    return covered, missing


def _operands(
    plan: QueryPlan, direct: Sequence[Fragment], operand_points: Sequence[tuple[int, str]]
) -> tuple[bool, str]:
    if plan.intent != "compare" or len(plan.operands) < 2:
        return True, ""
    supported = {f.knowledge_point_id for f in direct}
    text = compact_key(" ".join(f.text for f in direct))
    sides = []
    for index, operand in enumerate(plan.operands):
        points = {kp for i, kp in operand_points if i == index}
        words = [w for w in re.findall(r"\w+", operand.lower()) if len(w) > 2]
        by_text = bool(words) and all(compact_key(w) in text for w in words[-1:])
        sides.append(bool(points & supported) or by_text)
    missing = [plan.operands[i] for i, ok in enumerate(sides) if not ok]
    if missing:
        return False, f"no direct support for compare operand(s): {', '.join(missing)}"
    return True, "both compare operands have direct support"


def _intent(
    plan: QueryPlan, fragments: Sequence[Fragment], direct: Sequence[Fragment], operands_ok: bool
) -> tuple[bool, str]:
    text = "\n".join(f.text for f in fragments if f.role != "background")
    if plan.intent == "how_to":
        ok = bool(_STEPS.search(text))
        return ok, "steps found in the evidence" if ok else "a how-to needs steps; none found"
    if plan.intent == "causal":
        if not _CAUSAL.search(text):
            return False, "a causal answer needs mechanism or consequence; none found"
        # A consequence section hit only as a span: the consequence itself may sit in the
        # sentences around it, which only its section (parent context) shows.
        sections = {(f.document_id, f.heading_path) for f in fragments
                    if f.role == "parent_context"}  # fmt: skip
        cut = [
            f for f in direct
            if any(_CONSEQUENCE_HEADING.search(h) for h in f.heading_path)
            and (f.document_id, f.heading_path) not in sections
        ]  # fmt: skip
        if cut:
            return False, (
                f"causal consequence seen only as {len(cut)} spans; its section is not in the "
                "context"
            )
        return True, "mechanism or consequence found in the evidence"
    if plan.intent == "compare":
        return operands_ok, "both sides present" if operands_ok else "one compare side missing"
    if plan.intent == "definition":
        ok = any(_DEFINES.search(f.text) for f in direct)
        return ok, "a defining sentence found" if ok else "no defining sentence in direct support"
    return True, "generic question: key-term coverage decides"


def _names_the_concept(
    plan: QueryPlan, direct: Sequence[Fragment], named: Mapping[str, str]
) -> bool:
    """Every key term is part of a knowledge point name found in the question, and that
    knowledge point has direct support: the question asks about the concept itself ('tell me
    about optical bench drift'), which its own document answers whatever the wording."""
    if not plan.terms or not named:
        return False
    supported = {f.knowledge_point_id for f in direct}
    names = [name for name, kp in named.items() if kp in supported]
    return all(any(compact_key(t) in name for name in names) for t in plan.terms)


def answerability_features(
    plan: QueryPlan, best: tuple[str, str] | None, support: EvidenceSupport | None
) -> AnswerabilityFeatures | None:
    """The answerability inputs of the best hit paragraph, or None without its cosines."""
    if best is None or support is None:
        return None
    cosine = support.cosine.get(best[0])
    ranked = sorted(zip(support.sentence_cosines, support.sentences, strict=True), reverse=True)
    if not ranked and support.sentence_cosine is not None:
        ranked = [(support.sentence_cosine, best[1])]  # sentences unknown: the paragraph
    if cosine is None or not ranked:
        return None
    paragraph = best[1]
    terms = plan.terms
    topic = _words(support.topic)
    on_topic = [t for t in terms if _has_term(support.topic, t, topic)]
    off_topic = [t for t in terms if t not in on_topic]
    near = " ".join(text for _, text in ranked[:_TYPE_SENTENCES])
    rank = support.fulltext_rank
    other = support.other_document_cosine
    rest = [c for pid, c in support.cosine.items() if pid != best[0]]
    spread = [c for c, _ in ranked]
    return AnswerabilityFeatures(
        paragraph_cosine=cosine,
        # Unknown topic: counted as no more similar than the paragraph (no topic discount).
        topic_cosine=support.topic_cosine if support.topic_cosine is not None else cosine,
        sentence_cosine=ranked[0][0],
        second_sentence_cosine=ranked[min(1, len(ranked) - 1)][0],
        residual_sentence_cosine=_residual(plan, support, off_topic, ranked[0][0]),
        sentence_coverage=_share(terms, ranked[0][1]),
        paragraph_coverage=_share(terms, paragraph),
        off_topic_coverage=_share(off_topic, paragraph),
        answer_type_missing=0.0 if _answer_type_found(plan.query, near) else 1.0,
        fulltext_agreement=1.0 / rank if rank else 0.0,
        vector_agreement=1.0 / support.vector_rank if support.vector_rank else 0.0,
        document_margin=cosine - other if other is not None else 0.0,
        hits_lift=cosine - sum(rest) / len(rest) if rest else 0.0,
        sentence_lift=ranked[0][0] - sum(spread) / len(spread),
        best_hit_cosine=max([cosine, *rest]),
    )


def residual_cosines(
    question: Sequence[float], topic: Sequence[float], vectors: Sequence[Sequence[float]]
) -> tuple[float, ...]:
    """Cosine of each vector to the question's residual r = q - (q.t)t (t: the unit topic
    vector): what the question asks once the subject it shares with the page is taken out.
    A question that only names the topic has no residual (every cosine 0)."""
    norm = _norm(topic)
    unit = [x / norm for x in topic] if norm else [0.0] * len(question)
    along = sum(q * t for q, t in zip(question, unit, strict=True))
    residual = [q - along * t for q, t in zip(question, unit, strict=True)]
    # A residual this small is the rounding noise of a question parallel to its topic.
    if _norm(residual) <= _PARALLEL * _norm(question):
        return tuple(0.0 for _ in vectors)
    return tuple(cosine(residual, v) for v in vectors)


_PARALLEL = 1e-6  # residual norm / question norm below which nothing is left of the question


def _norm(a: Sequence[float]) -> float:
    return math.sqrt(sum(x * x for x in a))


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    norm = _norm(a) * _norm(b)
    return sum(x * y for x, y in zip(a, b, strict=True)) / norm if norm else 0.0


def _residual(
    plan: QueryPlan, support: EvidenceSupport, off_topic: Sequence[str], sentence: float
) -> float:
    """The residual sentence cosine where it measures what the question asks beyond the page's
    subject; the plain best sentence cosine (`sentence`) where it cannot: not computed (no
    topic vector), a question whose key terms all name the page's subject ('what is water
    glass?': its residual is the question word) or a compare question (its residual is mostly
    the other side, in another document, which the operand check looks for)."""
    residual = support.residual_sentence_cosine
    if residual is None or not off_topic or plan.intent == "compare":
        return sentence
    return residual


def _inputs(features: AnswerabilityFeatures | None) -> dict[str, float] | None:
    """The features by camelCase name, for the trace."""
    if features is None:
        return None
    head = {k: round(v, 5) for k, v in msgspec.structs.asdict(features).items()}
    return {k.split("_")[0] + "".join(p.title() for p in k.split("_")[1:]): v
            for k, v in head.items()}  # fmt: skip


def _answerability(
    features: AnswerabilityFeatures | None, settings: AnswerSettings
) -> float | None:
    """Logistic score over the answerability features with the weights of AnswerSettings."""
    if features is None or settings.answerability_threshold <= 0:
        return None
    f, w = features, settings
    z = (
        w.answerability_paragraph_weight * f.paragraph_cosine
        + w.answerability_topic_weight * f.topic_cosine
        + w.answerability_sentence_weight * f.sentence_cosine
        + w.answerability_second_sentence_weight * f.second_sentence_cosine
        + w.answerability_residual_sentence_weight * f.residual_sentence_cosine
        + w.answerability_sentence_coverage_weight * f.sentence_coverage
        + w.answerability_paragraph_coverage_weight * f.paragraph_coverage
        + w.answerability_off_topic_coverage_weight * f.off_topic_coverage
        + w.answerability_answer_type_weight * f.answer_type_missing
        + w.answerability_fulltext_weight * f.fulltext_agreement
        + w.answerability_vector_weight * f.vector_agreement
        + w.answerability_margin_weight * f.document_margin
        + w.answerability_hits_lift_weight * f.hits_lift
        + w.answerability_sentence_lift_weight * f.sentence_lift
        + w.answerability_best_hit_weight * f.best_hit_cosine
        + w.answerability_bias
    )
    return 1.0 / (1.0 + math.exp(-z))


# Expected answer types: a question of this kind is answered by a sentence holding this kind of
# value (looked for in the best few sentences of the best paragraph).
_TYPE_SENTENCES = 2
_WHEN = re.compile(r"\b(?:when|what (?:year|date|time|century|decade))\b", re.I)
_HOW_MANY = re.compile(r"\bhow (?:many|much|long|old|far|big|tall|often)\b", re.I)
_WHO = re.compile(r"\bwho(?:m|se)?\b", re.I)
_WHERE = re.compile(r"\bwhere\b", re.I)
_DATE = re.compile(
    r"\b(?:1\d{3}|20\d{2})s?\b|\b(?:january|february|march|april|may|june|july|august|"
    r"september|october|november|december|century|decade|season|episode|year|ago)\b",
    re.I,
)
_NUMBER = re.compile(
    r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|hundred|"
    r"thousand|million|billion|dozen|several|many|few)\b",
    re.I,
)
_NAME = re.compile(r"(?<=[^.!?\s]\s)[A-Z][a-z]+")  # a capitalised word inside a sentence


def _answer_type_found(question: str, text: str) -> bool:
    """Whether `text` holds the kind of value the question asks for (True when it asks for
    no particular kind)."""
    if _WHEN.search(question):
        return bool(_DATE.search(text))
    if _HOW_MANY.search(question):
        return bool(_NUMBER.search(text))
    if _WHO.search(question) or _WHERE.search(question):
        asked = question.lower()
        return any(name.lower() not in asked for name in _NAME.findall(text))
    return True


_SUFFIX = re.compile(r"(?:ings?|ed|es|s|ly)$")


def _stem(word: str) -> str:
    """A crude English stem ('filmed', 'filming', 'films' -> 'film'), enough to match a key
    term against the words of one sentence."""
    stem = _SUFFIX.sub("", word)
    return stem if len(stem) >= 3 else word


def _words(text: str) -> set[str]:
    return {_stem(w) for w in re.findall(r"[a-z0-9]+", text.lower())}


def _has_term(text: str, term: str, words: set[str]) -> bool:
    """A Latin word term matches a word of the text by stem; other terms (CJK, compounds)
    match by their compact form, as in _coverage."""
    if term.isascii() and term.isalnum():
        return _stem(term) in words
    key = compact_key(term)
    return bool(key) and key in compact_key(text)


def _share(terms: Sequence[str], text: str) -> float:
    """Share of `terms` found in `text` (1.0 when there are none to find)."""
    words = _words(text)
    return sum(1 for t in terms if _has_term(text, t, words)) / len(terms) if terms else 1.0
