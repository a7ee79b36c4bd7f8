"""Answerability: whether the best evidence answers what was asked, as a logistic score over
features of the best hit (weights and thresholds in AnswerSettings)."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import msgspec

from service.answer.sufficiency.model import AnswerabilityFeatures, EvidenceSupport, _norm, cosine
from service.answer.sufficiency.terms import _share, has_term, stems
from service.pipeline.plan import QueryPlan
from service.settings import AnswerSettings

__all__ = ["answerability_features", "cosine", "residual_cosines", "settles_answerability"]


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
    topic = stems(support.topic)
    on_topic = [t for t in terms if has_term(support.topic, t, topic)]
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


def settles_answerability(
    plan: QueryPlan, paragraph: tuple[str, str], support: EvidenceSupport, settings: AnswerSettings
) -> bool:
    """This hit alone passes the gate and is not uncertain: scoring other hits (the review
    reads the best score) could not change what the gate decides."""
    score = _answerability(answerability_features(plan, paragraph, support), settings)
    bar = max(settings.answerability_threshold, settings.answerability_confident_threshold)
    return score is not None and score >= bar


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
