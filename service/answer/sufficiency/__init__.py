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

from service.answer.sufficiency.answerability import (
    answerability_features,
    cosine,
    residual_cosines,
    settles_answerability,
)
from service.answer.sufficiency.model import (
    AnswerabilityFeatures,
    DocumentValidity,
    EvidenceSupport,
    Gate,
    SufficiencyReview,
)
from service.answer.sufficiency.review import review_sufficiency, stale_documents

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
    "settles_answerability",
    "stale_documents",
]
