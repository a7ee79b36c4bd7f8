"""What the sufficiency review decides and the evidence it decides on."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Literal

import msgspec

__all__ = [
    "AnswerabilityFeatures",
    "DocumentValidity",
    "EvidenceSupport",
    "Gate",
    "SufficiencyReview",
]


Status = Literal["sufficient", "borderline", "insufficient"]
Degradation = Literal[
    "none", "partial_coverage", "conflict", "stale_evidence", "insufficient_evidence"
]

_STEPS = re.compile(
    r"(?im)^\s*(?:[-*+]\s*)?(?:\**step\s*\d+|\d{1,2}[.)]\s)|\b(?:first|then|next|finally)\b,?|"
    # an instruction is a step too: "From Settings, tap Display > Screen timeout."
    r"(?:^|[.!?]\s+)(?:from [^,.]{1,40}, )?(?:tap|touch|press|click|select|open|swipe|drag|"
    r"choose|enter|go to|turn|slide|hold|connect|insert|remove|set)\b"
)
_CAUSAL = re.compile(
    r"\b(?:because|cause[sd]?|leads? to|led to|results? in|resulting|so that|therefore|thus|"
    r"mechanisms?|consequences?|as a result|due to|which means|triggers?|prevents?|makes? it|"
    # a purpose or a reason is the answer to a why as well
    r"in order to|so as to|in response to|in protest|in retaliation|owing to|on account of|"
    r"named (?:after|for)|the (?:main )?(?:reason|purpose)s?|reasons? (?:for|why)|"
    r"for the purpose)\b|"
    # ", so the name was changed": a consequence joined by "so" (not "so-called", "so far",
    # "so was his brother", "so to speak")
    r",\s+so\s+(?!(?:far|much|many|long|as|on|called|named|too|did|was|is|were|to|it|what)\b)|"
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
    answerability_paragraph: str | None = None  # the candidate hit those inputs are of
    answerability_threshold: float = 0.0  # the gate's threshold (0: no gate)
    # Passed the gate but under the confident threshold: a reason in the trace; an answer that
    # also lacks the asked-for value is declined (service/question/runner.py).
    uncertain: bool = False
    stale: tuple[str, ...] = ()  # paths of stale cited documents


def _norm(a: Sequence[float]) -> float:
    return math.sqrt(sum(x * x for x in a))


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    norm = _norm(a) * _norm(b)
    return sum(x * y for x, y in zip(a, b, strict=True)) / norm if norm else 0.0
