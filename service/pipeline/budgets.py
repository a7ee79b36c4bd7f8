"""Budget profiles of the context pack and the pipeline's other named limits (docs/evidence.md)."""

from __future__ import annotations

from typing import Literal

import msgspec

__all__ = ["BUDGETS", "Budget", "BudgetProfile", "PipelineSettings"]

BudgetProfile = Literal["base", "causal", "deep"]


class Budget(msgspec.Struct, frozen=True, kw_only=True):
    profile: BudgetProfile
    fragments: int
    fragment_chars: int
    total_chars: int


BUDGETS: dict[BudgetProfile, Budget] = {
    "base": Budget(profile="base", fragments=14, fragment_chars=1400, total_chars=5600),
    "causal": Budget(profile="causal", fragments=20, fragment_chars=1500, total_chars=7600),
    "deep": Budget(profile="deep", fragments=24, fragment_chars=1600, total_chars=9000),
}


class PipelineSettings(msgspec.Struct, frozen=True, kw_only=True):
    """Limits of one question's evidence path; every one has a unit in its name."""

    retrieval_candidates: int = 40  # per channel (full-text, vector) before fusion
    fusion: str = "score"  # "score": weighted min-max score fusion; "rrf": reciprocal rank fusion
    rrf_k: int = 60  # reciprocal rank fusion constant
    vector_weight: float = 0.6  # score fusion weights of the channels (see retrieval.py)
    fulltext_weight: float = 0.4
    knowledge_point_weight: float = 0.2
    evidence_documents: int = 4  # documents whose paragraphs may become direct support
    evidence_document_share: float = 0.6  # ... when their fused score is this share of the best
    top_k: int = 8  # fused paragraph hits kept
    vector_oversample: float = 2.0  # index candidates per wanted in-scope hit, after scope share
    vector_max_candidates: int = 4000  # HNSW top-k ceiling
    exact_vector_max_paragraphs: int = 3000  # smaller scopes: exact cosine over every paragraph
    # Smaller scopes: BM25 computed with the scope's own statistics over every matching paragraph
    # (service/pipeline/lexical.py); larger ones use their own full-text index once it is ONLINE.
    # Keep it equal to IngestSettings.scope_fulltext_index_min_paragraphs.
    exact_fulltext_max_paragraphs: int = 3000
    name_candidates: int = 50  # knowledge points fetched by name before exact name matching
    parent_sections: int = 2  # sections read whole as parent context (those of the best hits)
    window_paragraphs: int = 5  # local window each side of a span
    window_paragraphs_structured: int = 2  # inside tables, code and Mermaid
    window_paragraphs_wide: int = 7  # causal and deep questions
    graph_window: int = 3  # predecessors and successors each
    graph_window_deep: int = 5
    min_relation_confidence: float = 0.5
    high_confidence: float = 0.9  # a path this confident may use the deep window
    max_query_chars: int = 2000


class AnswerSettings(msgspec.Struct, frozen=True, kw_only=True):
    """Named limits of the answer stages (service/answer/): sufficiency thresholds, the judge's
    bounds, the one recovery pass and the public answer's size."""

    # Sufficiency: share of the question's key terms that direct support must cover.
    sufficient_coverage: float = 0.6
    borderline_coverage: float = 0.3
    # Answerability: a logistic score over the features of the best hit (AnswerabilityFeatures
    # in service/answer/sufficiency.py), weights fitted on half A of ClapNQ dev
    # (bench/clapnq_answers.py --fit). Refitting the weights on every public set at once
    # (bench/fit_answerability.py) did worse on the held-out sets than these weights with
    # thresholds calibrated across the sets, so only the thresholds are chosen across sets
    # (bench/fit_answerability.py --calibrate-only, on the fit halves): below
    # `answerability_threshold` the question is declined (the highest threshold at which no
    # public set's fit half refuses more than 5% of its answerable questions); between it and
    # `answerability_confident_threshold` the answer is partial, with a caveat. Figures in
    # docs/benchmarks.md.
    answerability_paragraph_weight: float = 19.358
    answerability_topic_weight: float = -0.854
    answerability_sentence_weight: float = 3.364
    answerability_second_sentence_weight: float = 0.0
    answerability_residual_sentence_weight: float = 6.737
    answerability_sentence_coverage_weight: float = 0.0
    answerability_paragraph_coverage_weight: float = 0.0
    answerability_off_topic_coverage_weight: float = 0.0
    answerability_answer_type_weight: float = 0.0
    answerability_fulltext_weight: float = 0.0
    answerability_vector_weight: float = 0.0
    answerability_margin_weight: float = 0.0
    answerability_hits_lift_weight: float = 0.0
    answerability_sentence_lift_weight: float = 0.0
    answerability_best_hit_weight: float = 0.0
    answerability_bias: float = -18.869
    answerability_sentences: int = 10  # sentences of the best paragraph embedded for the gate
    # Those texts go to the model this many at a time: the model runs one call at a time, and a
    # whole batch (21 texts) made every other answer's question embedding wait behind it.
    answerability_embed_chunk_texts: int = 4
    answerability_threshold: float = 0.079  # probability; 0 disables the gate
    answerability_confident_threshold: float = 0.5  # below it (and above the gate): partial
    # The judge (only with a provider configured).
    judge_candidates: int = 10  # fragments serialised for the judge
    judge_candidate_chars: int = 600  # per candidate, middle-truncated
    judge_reason_chars: int = 300  # longest reason kept from the judge
    # Recovery: at most one pass, with these increments over the first pass.
    recovery_passes: int = 1  # 0 disables recovery; more than 1 is refused
    recovery_window_paragraphs: int = 3  # added to every local window radius
    recovery_graph_neighbours: int = 1  # added per direction
    recovery_parent_sections: int = 3  # more sections read whole as parent context
    recovery_reserve_share: float = 0.4  # pack share held for parent/graph context (from 0.25)
    # Public answer size (one message).
    answer_sentences: int = 8
    how_to_steps: int = 8
    answer_chars: int = 1800
    # Generic profile: the answer is the contiguous passage of the best sentence's paragraph
    # around the chosen sentences (composer._passage), in sentences; 0 keeps ranked picks only.
    generic_passage_sentences: int = 7  # longest passage
    generic_passage_before: int = 1  # sentences added before the first chosen one
    generic_passage_after: int = 2  # and after the last
    # The same rule for the other profiles, each around its own lead sentence: the definition
    # after its defining sentence, the causal answer around its lead, each compared side within
    # its own paragraph. Fillers are cited like any sentence; 0 turns a profile's passage off.
    definition_passage_sentences: int = 7
    definition_passage_before: int = 1
    definition_passage_after: int = 2
    causal_passage_sentences: int = 7
    causal_passage_before: int = 1
    causal_passage_after: int = 2
    compare_passage_sentences: int = 4  # per side: half of answer_sentences
    compare_passage_before: int = 1
    compare_passage_after: int = 2
