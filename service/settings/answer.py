"""Named limits of the answer stages (KGS_ANSWER_*)."""

from __future__ import annotations

from typing import Annotated

import msgspec

from service.settings.environment import SIGNED, ZERO_ALLOWED

__all__ = ["AnswerSettings"]


class AnswerSettings(msgspec.Struct, frozen=True, kw_only=True):
    """Named limits of the answer stages (service/answer/): sufficiency thresholds, the judge's
    bounds, the one recovery pass and the public answer's size."""

    # Sufficiency: share of the question's key terms that direct support must cover.
    sufficient_coverage: float = 0.6
    # Below this share of the key terms covered, an answer is partial (it names the missing
    # ones); between it and sufficient_coverage, answered with the missing terms in the trace.
    partial_coverage: float = 0.5
    borderline_coverage: float = 0.3  # below it, without answerability: declined
    # Answerability: a logistic score over the features of the best hit (AnswerabilityFeatures
    # in service/answer/sufficiency/), weights fitted on half A of ClapNQ dev
    # (bench/clapnq_answers.py --fit). Refitting the weights on every public set at once
    # (bench/fit_answerability.py) did worse on the held-out sets than these weights with
    # thresholds calibrated across the sets, so only the thresholds are chosen across sets
    # (bench/fit_answerability.py --calibrate-only, on the fit halves): below
    # `answerability_threshold` the question is declined (the highest threshold at which no
    # public set's fit half refuses more than 5% of its answerable questions); between it and
    # `answerability_confident_threshold` the review marks the answer uncertain: it keeps its
    # status with a reason in the trace, and is declined when it also lacks the asked-for
    # value. Figures in docs/benchmarks.md.
    answerability_paragraph_weight: Annotated[float, SIGNED] = 19.358
    answerability_topic_weight: Annotated[float, SIGNED] = -0.854
    answerability_sentence_weight: Annotated[float, SIGNED] = 3.364
    answerability_second_sentence_weight: Annotated[float, SIGNED] = 0.0
    answerability_residual_sentence_weight: Annotated[float, SIGNED] = 6.737
    answerability_sentence_coverage_weight: Annotated[float, SIGNED] = 0.0
    answerability_paragraph_coverage_weight: Annotated[float, SIGNED] = 0.0
    answerability_off_topic_coverage_weight: Annotated[float, SIGNED] = 0.0
    answerability_answer_type_weight: Annotated[float, SIGNED] = 0.0
    answerability_fulltext_weight: Annotated[float, SIGNED] = 0.0
    answerability_vector_weight: Annotated[float, SIGNED] = 0.0
    answerability_margin_weight: Annotated[float, SIGNED] = 0.0
    answerability_hits_lift_weight: Annotated[float, SIGNED] = 0.0
    answerability_sentence_lift_weight: Annotated[float, SIGNED] = 0.0
    answerability_best_hit_weight: Annotated[float, SIGNED] = 0.0
    answerability_bias: Annotated[float, SIGNED] = -18.869
    answerability_sentences: int = 10  # sentences of each scored hit embedded for the gate
    # Besides the best fused hit, the gate scores the hits the vector channel ranks within this
    # many and above it, and reads one of them that scores over the confident threshold (0: the
    # best fused hit alone).
    answerability_vector_ranks: Annotated[int, ZERO_ALLOWED] = 2
    # Those texts go to the model this many at a time: the model runs one call at a time, and a
    # whole batch (21 texts) made every other answer's question embedding wait behind it.
    answerability_embed_chunk_texts: int = 4
    answerability_threshold: Annotated[float, ZERO_ALLOWED] = (
        0.079  # probability; 0 disables the gate
    )
    # below it (and above the gate): uncertain, declined when the asked-for value is missing
    answerability_confident_threshold: float = 0.5
    # The judge (only with a provider configured).
    judge_candidates: int = 10  # fragments serialised for the judge
    judge_candidate_chars: int = 600  # per candidate, middle-truncated
    judge_reason_chars: int = 300  # longest reason kept from the judge
    # Recovery: at most one pass, with these increments over the first pass.
    recovery_passes: Annotated[int, ZERO_ALLOWED] = 1  # 0 disables recovery; more than 1 is refused
    recovery_window_paragraphs: int = 3  # added to every local window radius
    recovery_graph_neighbours: int = 1  # added per direction
    recovery_parent_sections: int = 3  # more sections read whole as parent context
    recovery_reserve_share: float = 0.4  # pack share held for parent/graph context (from 0.25)
    # Public answer size (one message).
    answer_sentences: int = 8
    how_to_steps: int = 8  # steps of an unstructured how-to answer (no procedure found)
    # A procedure's steps given whole, in order; past this many, the first ones and a pointer
    # to the rest, status partial.
    procedure_max_steps: int = 15
    # A procedure whose headings and introduction name this share of the question's terms
    # answers a how-to question without the answerability gate (which reads sentences).
    procedure_named_share: float = 0.5
    # A procedure naming this share (under the one above) is given `partial`, with its steps,
    # where the answerability gate would refuse the question.
    procedure_partial_share: float = 0.33
    answer_chars: int = 1800  # longest public answer text
    # A how-to or generic answer brings in the whole menu a sentence of it opens, its options
    # free of answer_sentences, then keeps those asked about: at most this many options.
    menu_options: int = 12
    # Generic profile (composer.select): the best-matching page's first sentences, then its
    # sentences that match the question best, in the page's reading order.
    generic_lead_sentences: Annotated[int, ZERO_ALLOWED] = 2
    generic_best_sentences: int = 2  # the generic answer's best-matching sentences
    # and the first sentence of each neighbour page it quotes after them (0: none)
    generic_graph_sentences: Annotated[int, ZERO_ALLOWED] = 2
    # Causal and compare profiles: the contiguous passage of the paragraph around the profile's
    # lead sentence (composer._span): the causal answer around its lead, each compared side
    # within its own paragraph. Fillers are cited like any sentence; 0 turns a passage off.
    causal_passage_sentences: Annotated[int, ZERO_ALLOWED] = 7  # causal answer's passage
    causal_passage_before: int = 1  # sentences before its lead
    causal_passage_after: int = 2  # and after
    compare_passage_sentences: Annotated[int, ZERO_ALLOWED] = (
        4  # per side: half of answer_sentences
    )
    compare_passage_before: int = 1  # sentences before each side's lead
    compare_passage_after: int = 2  # and after
