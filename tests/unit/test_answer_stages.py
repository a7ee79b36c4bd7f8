"""Sufficiency gates, composer profiles, release gates, claim mapping and recovery bounds."""

from __future__ import annotations

import datetime as dt

import msgspec
import pytest

from service.answer.claims import map_claims, quote_matches_source, verify_quotes
from service.answer.composer import Draft, DraftSentence, compose_answer
from service.answer.recovery import recovery_settings, should_recover
from service.answer.release import release, review_release
from service.answer.sentences import evidence_sentences, mermaid_statement, public_text
from service.answer.sufficiency import (
    DocumentValidity,
    EvidenceSupport,
    answerability_features,
    residual_cosines,
    review_sufficiency,
)
from service.answer.typed_value import check_typed_value
from service.pipeline.context_pack import RagContextPack
from service.pipeline.evidence import Fragment, SourceDecision
from service.pipeline.retrieval import Hit
from service.question.runner import answerability_candidates
from service.settings import AnswerSettings, PipelineSettings
from tests.unit.answer_fixtures import (
    DOC,
    SOURCE,
    borderline_review,
    context,
    fragment,
    neighbour,
    pack_of,
    plan_for,
    pool_of,
    rows,
)  # fmt: skip

SETTINGS = AnswerSettings()


def _review(query: str, pack=None, ctx=None, settings=SETTINGS, **kw):  # type: ignore[no-untyped-def]
    return review_sufficiency(plan_for(query), pack or pack_of(), ctx or context(),
                              named={}, settings=settings, **kw)  # fmt: skip


# --- sufficiency ------------------------------------------------------------------------------


def test_covered_question_is_sufficient() -> None:
    review = _review("what is water glass?")
    assert (review.status, review.degradation) == ("sufficient", "none")
    assert {g.name for g in review.gates} >= {
        "direct_evidence_coverage", "query_intent_coverage", "graph_support",
        "citation_availability", "budget_compliance", "conflict", "temporal_validity",
    }  # fmt: skip


def test_no_direct_support_is_insufficient() -> None:
    review = _review("what is water glass?", pack=pack_of({1: "parent_context"}))
    assert (review.status, review.degradation) == ("insufficient", "insufficient_evidence")


def test_uncovered_terms_are_borderline_partial() -> None:
    review = _review("what is water glass used for in foundry cores?")
    assert review.status in ("borderline", "insufficient")
    assert "foundry" in review.missing_terms


def test_words_that_frame_the_answer_are_not_required_terms() -> None:
    """A question about the purpose of the gloves is answered by why they are worn, without
    the word "purpose"; the thing the purpose is asked of must still be there."""
    gloves = _review("What is the purpose of the gloves?")
    assert gloves.missing_terms == ()
    assert next(g for g in gloves.gates if g.name == "direct_evidence_coverage").passed
    respirator = _review("What is the purpose of the respirator?")
    assert respirator.missing_terms == ("respirator",)
    assert respirator.status != "sufficient"


def _definition_gate(query: str, section_text: str) -> bool:
    """The intent gate of a definition question over a span the splitter cut at "CAS no."
    and the section it sits in."""
    row = rows()[0]
    cut = fragment({**row, "text": "Water glass (sodium silicate, CAS no.",
                    "endOffset": row["startOffset"] + 37})  # fmt: skip
    section = fragment({**row, "text": section_text}, "parent_context")
    pack = pack_of({6: "background"}, extra=(cut, section))
    return next(g for g in _review(query, pack=pack).gates
                if g.name == "query_intent_coverage").passed  # fmt: skip


def test_a_definition_may_go_on_past_the_cited_span() -> None:
    defined = "Water glass (sodium silicate, CAS no. 1344-09-8) is a solution in water."
    assert _definition_gate("What is water glass?", defined)
    undefined = "Water glass (sodium silicate, CAS no. 1344-09-8): store it cool and dry."
    assert not _definition_gate("What is water glass?", undefined)
    # Asked for its parts, not what it is: coverage judges the answer.
    assert _definition_gate("What are the components of water glass?", undefined)


def test_a_question_typed_without_accents_names_an_accented_page() -> None:
    row = rows()[0]
    temple = fragment({**row, "text": "Hōryū-ji was dedicated to Yakushi Nyorai in 607."})
    review = _review("who was horyu ji dedicated to", pack=pack_of({6: "background"},
                                                               extra=(temple,)))  # fmt: skip
    assert "horyu" not in review.missing_terms
    # A name the question spells with its accents is found in a page that does not repeat it.
    plain = fragment({**row, "text": "The temple was dedicated to Yakushi Nyorai in 607."})
    named = review_sufficiency(
        plan_for("who was Hōryū-ji dedicated to"), pack_of({6: "background"}, extra=(plain,)),
        context(), named={"hōryūji": "waterglass"}, settings=SETTINGS)  # fmt: skip
    assert not any("ryū" in t for t in named.missing_terms)


@pytest.mark.parametrize(
    ("reason", "causal"),
    [
        ("The cell is living and preparing to divide, so the name was changed.", True),
        ("Carter set a deadline or the Soviet Union would face the consequences.", True),
        ("The wall was built in order to stop emigration to the West.", True),
        ("The town was named after its first mayor.", True),
        ("The wall was 155 km long, so far as records show.", False),
        ("The border had a wall, so-called by the press.", False),
        ("It was, so to speak, a border.", False),
        ("It was a general-purpose barrier.", False),
        ("The wall was 155 km long and had 302 watchtowers.", False),
    ],
)
def test_a_why_is_answered_by_a_reason_a_purpose_or_a_consequence(
    reason: str, causal: bool
) -> None:
    row = rows()[0]
    pack = pack_of({6: "background"}, extra=(fragment({**row, "text": reason}),))
    gate = next(g for g in _review("why was the wall changed", pack=pack).gates
                if g.name == "query_intent_coverage")  # fmt: skip
    assert gate.passed is causal


def test_how_to_needs_steps() -> None:
    no_steps = _review("how to apply water glass?", pack=pack_of({0: "direct_support"}))
    assert not next(g for g in no_steps.gates if g.name == "query_intent_coverage").passed
    assert _review("how to apply water glass?").status == "sufficient"


def test_missing_neighbour_source_is_graph_evidence_missing() -> None:
    lost = SourceDecision(fragment_id="f_x", role="graph_neighbor_support",
                          status="source_window_unavailable", reason="no source")  # fmt: skip
    review = _review("what is water glass?", pack=pack_of(unavailable=(lost,)),
                     ctx=context(neighbour("Silica gel", document=None)))  # fmt: skip
    assert (review.status, review.degradation) == ("borderline", "partial_coverage")
    assert any("graph_neighbor_evidence_missing" in r for r in review.reasons)
    assert review.recoverable


def test_conflict_fragment_is_borderline_conflict() -> None:
    row = rows()[0]
    conflict = msgspec.structs.replace(fragment(row, "conflict"), id="f_conflict",
                                       source_boundary="full_document")  # fmt: skip
    review = _review("what is water glass?", pack=pack_of(extra=(conflict,)))
    assert (review.status, review.degradation) == ("borderline", "conflict")
    assert not review.recoverable


def test_expired_or_superseded_source_is_stale() -> None:
    validity = {DOC: DocumentValidity(document_id=DOC, path="kb/waterglass.md",
                                      valid_until="2020-01-01")}  # fmt: skip
    review = _review("what is water glass?", validity=validity, today=dt.date(2026, 1, 1))
    assert (review.status, review.degradation) == ("borderline", "stale_evidence")
    superseded = {DOC: DocumentValidity(document_id=DOC, path="p", superseded_by="new-doc")}
    assert _review("what is water glass?", validity=superseded).degradation == "stale_evidence"


def test_answerability_gate_declines_far_evidence() -> None:
    best = ("p0", rows()[0]["text"])
    far = _review("what is water glass?", candidates=[(best, EvidenceSupport(cosine={"p0": 0.1},
                  sentence_cosine=0.1))])  # fmt: skip
    near = _review("what is water glass?", candidates=[(best, EvidenceSupport(cosine={"p0": 0.8},
                   sentence_cosine=0.8))])  # fmt: skip
    assert far.status == "insufficient" and not far.recoverable
    assert near.status == "sufficient"
    assert near.answerability_inputs is not None
    assert near.answerability_inputs["paragraphCosine"] == 0.8


def test_a_word_of_a_task_family_covers_the_asked_task() -> None:
    """ "Inspecting the film" is covered by a page that says "check that the film is hard":
    both name one upkeep task. A task of another family (replacing) stays missing."""
    assert "inspect" not in _review("how do I inspect the water glass film?").missing_terms
    assert "replace" in _review("how do I replace the water glass film?").missing_terms


def test_a_procedure_naming_a_third_of_the_question_is_partial_not_refused() -> None:
    """Steps whose headings name part of a how-to question may be the asked ones in other words
    ("stored fault reset steps" / "Clearing a stored error code"): far evidence no longer
    refuses them, but nor does it make them an answer. Naming less still refuses, and so does
    a question that asks for no steps or a procedure for another task."""
    best = ("p0", rows()[0]["text"])
    far = [(best, EvidenceSupport(cosine={"p0": 0.1}, sentence_cosine=0.1))]

    def review(query: str, named: float, heading: tuple[str, ...] = ()):  # type: ignore[no-untyped-def]
        steps = fragment(rows()[0], procedure_named=named, step_starts=(0, 10))
        if heading:
            steps = msgspec.structs.replace(steps, heading_path=heading)
        pack = pack_of({1: "parent_context"}, extra=(steps,))
        return _review(query, pack=pack, candidates=far)

    shown = review("water glass binder mixing steps", 0.34)
    assert (shown.status, shown.degradation) == ("borderline", "partial_coverage")
    assert shown.missing_terms  # the answer names what the steps do not cover
    assert review("water glass binder mixing steps", 0.2).status == "insufficient"
    assert review("water glass binder mixing steps", 0.5).status == "sufficient"
    assert review("why does water glass binder crack?", 0.34).status == "insufficient"
    other = review("How do I replace the water glass binder?", 0.34,
                   ("Water glass", "Calibrating the water glass binder"))  # fmt: skip
    assert other.status == "insufficient"


def test_a_name_the_procedures_manual_gives_is_not_missing_from_its_task_page() -> None:
    """A manual's task page leaves its product unnamed ("Preparing the bike for winter
    storage"): a name another page of the same folder writes as a name, a word capitalised
    inside a sentence or a model code, is covered, and steps lacking nothing else answer. The
    same word on a page of another folder, or only at a sentence's start, leaves them partial."""
    best = ("p0", rows()[0]["text"])
    far = [(best, EvidenceSupport(cosine={"p0": 0.1}, sentence_cosine=0.1))]
    steps = fragment(rows()[0], procedure_named=0.34, step_starts=(0, 10))

    def review(query: str, sibling: str, path: str = "kb/binder.md"):  # type: ignore[no-untyped-def]
        other = fragment(rows(sibling + "\n", path, "d_other")[0])
        pack = pack_of({1: "parent_context"}, extra=(steps, other))
        return _review(query, pack=pack, candidates=far)

    named = review("water glass steps for the Silvo", "The Silvo kit holds two litres.")
    assert (named.status, named.missing_terms) == ("sufficient", ())
    gate = next(g for g in named.gates if g.name == "answerability")
    assert gate.passed and gate.detail.endswith("names its manual gives: silvo")
    coded = review("water glass steps for the sk20", "Mix it in an SK20 bucket.")
    assert coded.status == "sufficient"
    elsewhere = review("water glass steps for the Silvo", "The Silvo kit holds two litres.",
                       "other/binder.md")  # fmt: skip
    assert (elsewhere.status, elsewhere.missing_terms) == ("borderline", ("silvo",))
    opening = review("water glass steps for the Silvo", "Silvo kits hold two litres.")
    assert opening.missing_terms == ("silvo",)
    # A term the sibling writes in lower case is a word, not the product's name.
    plain = review("water glass steps for the silvo", "Mix it like silvo paste.")
    assert plain.missing_terms == ("silvo",)


def test_answerability_reads_another_candidate_only_when_it_confidently_answers() -> None:
    """The best fused hit can share the question's words without its answer, which a hit the
    vector channel ranks higher holds: the gate reads that one when it scores at least the
    confident threshold, and the trace names the paragraph its inputs are of."""
    text = rows()[0]["text"]
    weak = (("p0", text), EvidenceSupport(cosine={"p0": 0.1, "p1": 0.8}, sentence_cosine=0.1))
    strong = (("p1", text), EvidenceSupport(cosine={"p0": 0.1, "p1": 0.8}, sentence_cosine=0.8))
    alone = _review("what is water glass?", candidates=[weak])
    both = _review("what is water glass?", candidates=[weak, strong])
    assert alone.status == "insufficient" and alone.answerability_paragraph == "p0"
    assert both.status == "sufficient" and both.answerability_paragraph == "p1"
    assert both.answerability_inputs is not None
    assert both.answerability_inputs["paragraphCosine"] == 0.8
    assert both.answerability is not None
    assert both.answerability >= SETTINGS.answerability_confident_threshold
    # A likelier candidate that is not confident leaves the best fused hit's refusal standing.
    doubtful = AnswerSettings(answerability_confident_threshold=both.answerability + 0.01)
    kept = _review("what is water glass?", candidates=[weak, strong], settings=doubtful)
    assert kept.status == "insufficient" and kept.answerability_paragraph == "p0"


def test_answerability_candidates_are_the_top_hit_and_the_vector_channels_first_above_it() -> None:
    def hit(pid: str, ranks: dict[str, int]) -> Hit:
        return Hit(
            paragraph_id=pid, document_id="d", path="s/doc.md", title="Doc", kind="paragraph",
            text="Text.", ordinal=0, heading_path=("Doc",), start_offset=0, end_offset=5,
            start_line=1, end_line=1, knowledge_point_ids=(), score=0.5, ranks=ranks,
            span_start=0, span_end=5, span_text="Text.", citation_id=f"c_{pid}",
        )  # fmt: skip

    hits = [
        hit("a", {"fulltext": 1, "vector": 4}),
        hit("b", {"vector": 2}),
        hit("c", {"fulltext": 2}),
        hit("d", {"vector": 1}),
        hit("e", {"vector": 3}),
    ]
    chosen = answerability_candidates(hits, AnswerSettings(answerability_vector_ranks=2))
    assert [h.paragraph_id for h in chosen] == ["a", "b", "d"]
    # A best fused hit the vector channel ranks second has only the first above it.
    hits[0] = hit("a", {"fulltext": 1, "vector": 2})
    chosen = answerability_candidates(hits, AnswerSettings(answerability_vector_ranks=2))
    assert [h.paragraph_id for h in chosen] == ["a", "d"]
    alone = answerability_candidates(hits, AnswerSettings(answerability_vector_ranks=0))
    assert [h.paragraph_id for h in alone] == ["a"]
    assert answerability_candidates([], AnswerSettings()) == []


def test_answerability_between_the_gate_and_the_confident_threshold_is_uncertain_only() -> None:
    """An uncertain score is recorded (an answer without the asked-for value then abstains, in
    the runner), but a partial answer must name what it lacks: uncertainty alone is not that."""
    best = ("p0", rows()[0]["text"])
    support = EvidenceSupport(cosine={"p0": 0.8}, sentence_cosine=0.8)
    score = _review("what is water glass?", candidates=[(best, support)]).answerability
    assert score is not None
    below = AnswerSettings(
        answerability_threshold=score - 0.01, answerability_confident_threshold=score + 0.01
    )
    above = AnswerSettings(
        answerability_threshold=score - 0.02, answerability_confident_threshold=score - 0.01
    )
    band = _review("what is water glass?", candidates=[(best, support)], settings=below)
    assert band.uncertain and (band.status, band.degradation) == ("sufficient", "none")
    assert any("may not answer exactly" in r for r in band.reasons)
    sure = _review("what is water glass?", candidates=[(best, support)], settings=above)
    assert not sure.uncertain and sure.status == "sufficient"
    gated = AnswerSettings(answerability_threshold=score + 0.01)
    refused = _review("what is water glass?", candidates=[(best, support)], settings=gated)
    assert refused.status == "insufficient" and not refused.uncertain


def test_a_page_matching_only_by_its_topic_scores_lower() -> None:
    """Same paragraph and sentence cosines: when the sentence meets the question only along
    the page's topic, the residual takes that part out and the score drops (the topic cosine's
    own weight fits near 0 beside the residual)."""
    best = ("p0", rows()[0]["text"])
    question, sentence = (0.6, 0.8, 0.0), (1.0, 0.0, 0.0)

    def score(topic: tuple[float, float, float]) -> float:
        (residual,) = residual_cosines(question, topic, [sentence])
        topic_cosine = sum(q * t for q, t in zip(question, topic, strict=True))
        support = EvidenceSupport(
            cosine={"p0": 0.82},
            sentence_cosine=0.6,
            topic_cosine=topic_cosine,
            residual_sentence_cosine=residual,
        )
        review = _review("what is water glass?", candidates=[(best, support)])
        assert review.answerability is not None and review.answerability_inputs is not None
        assert review.answerability_inputs["topicCosine"] == topic_cosine
        return float(review.answerability)

    # the sentence's whole match lies along the topic vs. a topic the question does not share
    assert score((1.0, 0.0, 0.0)) < score((0.0, 0.0, 1.0))


def test_a_sentence_addressing_what_is_asked_beyond_the_topic_scores_higher() -> None:
    """Same paragraph, sentence and topic cosines: the passage whose sentences meet the
    question's residual (what it asks once the page's subject is taken out) is likelier to
    hold the answer than one that only names the subject."""
    best = ("p0", rows()[0]["text"])

    def score(residual: float) -> float:
        support = EvidenceSupport(cosine={"p0": 0.82}, sentence_cosine=0.6, topic_cosine=0.5,
                                  residual_sentence_cosine=residual)  # fmt: skip
        review = _review("what is water glass?", candidates=[(best, support)])
        assert review.answerability is not None and review.answerability_inputs is not None
        assert review.answerability_inputs["residualSentenceCosine"] == residual
        return float(review.answerability)

    assert score(0.1) < score(0.5)


def test_residual_cosines_take_the_topic_direction_out_of_the_question() -> None:
    half = 0.5**0.5
    question, topic = (half, half, 0.0), (2.0, 0.0, 0.0)  # the topic need not be unit length
    # residual (0, half, 0): a sentence along it answers, one along the topic does not
    cos = residual_cosines(question, topic, [(0.0, 1.0, 0.0), (1.0, 0.0, 0.0), (0.0, 1.0, 1.0)])
    assert cos == pytest.approx((1.0, 0.0, half))
    assert residual_cosines((1.0, 0.0, 0.0), topic, [(1.0, 0.0, 0.0), (0.0, 1.0, 0.0)]) == (0, 0)
    # no topic vector: nothing to take out, the plain cosine
    plain = residual_cosines(question, (0.0, 0.0, 0.0), [(1.0, 0.0, 0.0)])
    assert plain == pytest.approx((half,))


_FILMING = ("Filming began in Atlanta in 2015 .", "The series was created by two brothers .")


def _features(query: str, sentences: tuple[str, ...] = _FILMING, **support):  # type: ignore[no-untyped-def]
    kw = {"cosine": {"p0": 0.8}, "sentences": sentences,
          "sentence_cosines": tuple(0.6 - 0.1 * i for i in range(len(sentences))),
          "topic": "Stranger Things", **support}  # fmt: skip
    features = answerability_features(
        plan_for(query), ("p0", " ".join(sentences)), EvidenceSupport(**kw)
    )
    assert features is not None
    return features


def test_answerability_features_read_the_best_sentences() -> None:
    f = _features("when was the first season of stranger things filmed?")
    assert (f.sentence_cosine, f.second_sentence_cosine) == (0.6, 0.5)
    assert f.answer_type_missing == 0.0  # 2015 answers a when-question
    assert 0 < f.sentence_coverage < 1  # 'filmed' matches 'Filming'; 'season' is missing
    # the title's words are the topic: only 'first', 'season', 'filmed' must be in the text
    assert f.off_topic_coverage == pytest.approx(1 / 3)
    assert f.residual_sentence_cosine == 0.6  # not computed: the best sentence stands in
    given = _features("when was it filmed?", residual_sentence_cosine=0.2)
    assert given.residual_sentence_cosine == 0.2


def test_the_residual_stands_aside_where_it_cannot_measure_the_asked_aspect() -> None:
    """Only the page's subject asked (its residual is the question word), or a compare question
    (its residual is mostly the other side, in another document): the plain best sentence."""
    subject = _features("what is stranger things?", residual_sentence_cosine=0.01)
    assert subject.residual_sentence_cosine == 0.6
    compared = _features("compare stranger things and dark", residual_sentence_cosine=0.1)
    assert compared.residual_sentence_cosine == 0.6


def test_answerability_features_miss_the_asked_type_and_rank_disagreement() -> None:
    no_date = ("The series is set in a small town .", "It follows a group of children .")
    f = _features("when was stranger things filmed?", no_date, fulltext_rank=4,
                  other_document_cosine=0.7)  # fmt: skip
    assert f.answer_type_missing == 1.0
    assert f.fulltext_agreement == 0.25
    assert f.document_margin == pytest.approx(0.1)
    how_many = _features("how many seasons does stranger things have?", no_date)
    assert how_many.answer_type_missing == 1.0
    who = _features("who created stranger things?", ("It was created by Matt Duffer .",))
    assert who.answer_type_missing == 0.0
    untyped = _features("what is stranger things about?", no_date)
    assert untyped.answer_type_missing == 0.0


def test_answerability_features_normalise_by_the_question_s_other_hits() -> None:
    f = _features("when was stranger things filmed?",
                  cosine={"p0": 0.8, "p1": 0.7, "p2": 0.5, "p3": 0.85})  # fmt: skip
    assert f.hits_lift == pytest.approx(0.8 - (0.7 + 0.5 + 0.85) / 3)
    assert f.best_hit_cosine == 0.85  # fusion ranked p0 first; p3 is nearer
    assert f.sentence_lift == pytest.approx(0.6 - (0.6 + 0.5) / 2)
    alone = _features("when was stranger things filmed?", ("Filming began in 2015 .",))
    assert (alone.hits_lift, alone.sentence_lift, alone.best_hit_cosine) == (0.0, 0.0, 0.8)


# --- composer ---------------------------------------------------------------------------------


def _draft(query: str, pack=None) -> Draft:  # type: ignore[no-untyped-def]
    pack = pack or pack_of()
    return compose_answer(plan_for(query), pack, pool_of(pack), context(), settings=SETTINGS)


def test_how_to_profile_keeps_prerequisite_steps_and_failure_without_labels() -> None:
    draft = _draft("how to apply water glass?")
    assert draft.profile == "how_to"
    slots = [s.slot for s in draft.sentences]
    assert {"prerequisite", "step", "failure"} <= set(slots)
    text = draft.text.lower()
    assert "step 1:" in text and "step 2:" in text
    assert "prerequisite:" not in text and "failure mode:" not in text
    assert text.index("step 1") < text.index("step 2")
    # A numbered procedure opens with its steps, and no sentence is said twice.
    assert slots[0] == "step" and "overview" not in slots
    keys = [" ".join(s.text.lower().split()) for s in draft.sentences]
    assert len(keys) == len(set(keys))


@pytest.mark.parametrize(
    ("edge", "statement"),
    [
        ("W[Water glass] -->|analogous to| S[Soda-lime glass]",
         "Water glass is analogous to soda-lime glass."),
        ("W[Water glass] -->|contrasts with| P[Plastic cup]",
         "Water glass contrasts with plastic cup."),
        ("A[Reference beam] -->|part of| B[Bench B]", "Reference beam is part of Bench B."),
        ("A[Kiln] -->|precedes| B[Neo4j]", "Kiln precedes Neo4j."),
        ("A[Water glass] --> B[Silica gel]", "Water glass leads to silica gel."),
        ("A[水玻璃] -->|类似于| B[钠钙玻璃]", "水玻璃 类似于 钠钙玻璃."),
    ],
)  # fmt: skip
def test_relation_edges_read_as_english(edge: str, statement: str) -> None:
    assert mermaid_statement(f"  {edge}") == statement


def test_definition_profile_leads_with_the_definition_and_drops_prompt_residue() -> None:
    draft = _draft("what is water glass?")
    assert draft.profile == "definition"
    assert draft.sentences[0].text.startswith("Water glass is a solution")
    assert "final output" not in draft.text.lower() and "最终输出" not in draft.text


def test_causal_and_generic_profiles() -> None:
    assert _draft("why is water glass alkaline?").profile == "causal_explain"
    generic = _draft("water glass film hardness")
    assert generic.profile == "generic" and "film" in generic.text.lower()


_PASSAGE = (
    "# Tides\n\n"
    "Tides are the rise and fall of sea levels. The Moon pulls the oceans toward it. "
    "This bulge follows the Moon around the Earth. A second bulge forms on the far side. "
    "Spring tides happen when the Sun and Moon align. Neap tides are weaker. "
    "Fishermen plan around them. Harbours publish tables. Surfers watch them too.\n"
)


PASSAGE = msgspec.structs.replace(
    SETTINGS,
    causal_passage_sentences=7,
    causal_passage_before=1,
    causal_passage_after=2,
)


def _passage_draft(query: str, settings: AnswerSettings = PASSAGE, source: str = _PASSAGE) -> Draft:
    data = rows(source, "kb/tides.md", "d_tides")
    pack = pack_of(roles={}, extra=(fragment(data[0]),))
    pool = evidence_sentences(pack, data)
    return compose_answer(plan_for(query), pack, pool, context(), settings=settings)


def test_generic_answer_is_the_page_s_lead_then_its_best_sentences_in_reading_order() -> None:
    draft = _passage_draft("spring tides sun moon align")
    assert draft.profile == "generic"
    texts = [s.text for s in draft.sentences]
    # The page's first two sentences, then its two best-matching ones (the 5th, and the 2nd,
    # already in the lead, so the next best), in reading order; nothing between them.
    assert texts[:2] == ["Tides are the rise and fall of sea levels.",
                         "The Moon pulls the oceans toward it."]  # fmt: skip
    assert "Spring tides happen when the Sun and Moon align." in texts
    assert "A second bulge forms on the far side." not in texts
    assert "Surfers watch them too." not in texts
    starts = [s.evidence[0].start for s in draft.sentences]
    assert starts == sorted(starts)
    # Each part is its own limit: no lead, one best sentence.
    bare = _passage_draft(
        "spring tides sun moon align",
        msgspec.structs.replace(PASSAGE, generic_lead_sentences=0, generic_best_sentences=1),
    )
    assert [s.text for s in bare.sentences] == ["Spring tides happen when the Sun and Moon align."]


def test_definition_leads_with_its_defining_sentence_then_its_page_s_answer() -> None:
    draft = _passage_draft("what are tides?")
    assert draft.profile == "definition"
    texts = [s.text for s in draft.sentences]
    # The defining sentence, the page's second sentence (its opening), then the two other
    # sentences that name the tides best, in reading order; nothing else of the page.
    assert texts == [
        "Tides are the rise and fall of sea levels.", "The Moon pulls the oceans toward it.",
        "Spring tides happen when the Sun and Moon align.", "Neap tides are weaker.",
    ]  # fmt: skip
    assert draft.sentences[0].slot == "definition"
    assert {s.slot for s in draft.sentences[1:]} == {"attributes"}
    bare = _passage_draft(
        "what are tides?",
        msgspec.structs.replace(PASSAGE, generic_lead_sentences=1, generic_best_sentences=1),
    )
    assert [s.text for s in bare.sentences] == [texts[0], texts[2]]


def test_definition_is_a_sentence_whose_subject_is_the_asked_thing() -> None:
    """ "you are" and "A Samsung account is" define neither Samsung Pay nor anything asked."""
    text = (
        "# Samsung Pay\n\n"
        "If you are using the Samsung Pay app on several phones, you must sign in to Samsung "
        "Pay on each one. A Samsung account is required for Samsung Pay. Samsung Pay is a "
        "way to make payments with your phone. It is accepted almost anywhere.\n"
    )
    draft = _passage_draft("what is samsung pay?", source=text)
    assert draft.sentences[0].slot == "definition"
    assert draft.sentences[0].text == "Samsung Pay is a way to make payments with your phone."


def test_causal_answer_quotes_its_lead_sentence_s_passage_and_keeps_its_slots() -> None:
    draft = _passage_draft("why do spring tides happen when the sun and moon align?")
    assert draft.profile == "causal_explain"
    texts = [s.text for s in draft.sentences]
    lead = texts.index("Spring tides happen when the Sun and Moon align.")
    assert draft.sentences[lead].slot == "lead"
    # One sentence before the lead and two after it, in reading order.
    assert texts[lead - 1 : lead + 3] == [
        "A second bulge forms on the far side.", "Spring tides happen when the Sun and Moon align.",
        "Neap tides are weaker.", "Fishermen plan around them.",
    ]  # fmt: skip
    assert "Harbours publish tables." not in texts
    off = _passage_draft(
        "why do spring tides happen when the sun and moon align?",
        msgspec.structs.replace(PASSAGE, causal_passage_sentences=0),
    )
    assert off.sentences[0].text == "Spring tides happen when the Sun and Moon align."
    assert "Fishermen plan around them." not in [s.text for s in off.sentences]


_VESSELS = (
    "# Vessels\n\n"
    "A glass vessel is brittle. It shatters when dropped on stone. Its walls are 3 mm thick. "
    "It is washed by hand.\n\n"
    "A polymer cup is flexible. It bends when squeezed. Its walls are 1 mm thick. "
    "It is recycled after use.\n"
)


def test_each_compared_side_quotes_a_passage_of_its_own_paragraph_only() -> None:
    data = rows(_VESSELS, "kb/vessels.md", "d_vessels")
    pack = pack_of(roles={}, extra=tuple(fragment(row) for row in data))
    pool = evidence_sentences(pack, data)
    plan = plan_for("compare glass vessel and polymer cup")

    def compose(settings: AnswerSettings) -> Draft:
        return compose_answer(plan, pack, pool, context(), settings=settings)

    draft = compose(
        msgspec.structs.replace(
            SETTINGS, compare_passage_sentences=3, compare_passage_before=0, compare_passage_after=1
        )
    )
    assert draft.profile == "compare"
    assert [(s.slot, s.text, s.evidence[0].paragraph_id) for s in draft.sentences] == [
        ("operand_0", "A glass vessel is brittle.", "p0"),
        ("passage", "It shatters when dropped on stone.", "p0"),
        ("operand_1", "A polymer cup is flexible.", "p1"),
        ("passage", "It bends when squeezed.", "p1"),
    ]
    off = compose(msgspec.structs.replace(SETTINGS, compare_passage_sentences=0))
    assert [s.slot for s in off.sentences] == ["operand_0", "operand_1"]


def test_a_compared_side_inside_the_other_side_s_passage_keeps_its_own_slot() -> None:
    data = rows("# Vessels\n\nA glass vessel is brittle. A polymer cup is flexible. "
                "Both hold water. Neither is heated.\n", "kb/vessels.md", "d_vessels")  # fmt: skip
    pack = pack_of(roles={}, extra=tuple(fragment(row) for row in data))
    settings = msgspec.structs.replace(
        SETTINGS, compare_passage_sentences=4, compare_passage_before=1, compare_passage_after=2
    )
    draft = compose_answer(
        plan_for("compare glass vessel and polymer cup"),
        pack,
        evidence_sentences(pack, data),
        context(),
        settings=settings,
    )
    assert [(s.slot, s.text) for s in draft.sentences] == [
        ("operand_0", "A glass vessel is brittle."),
        ("operand_1", "A polymer cup is flexible."),
        ("contrast", "Both hold water."),
        ("passage", "Neither is heated."),
    ]  # so the comparison_consistency gate still sees both sides


def test_conflict_is_stated_with_both_values_and_one_sided_sentences_are_dropped() -> None:
    row = rows()[0]
    conflict = msgspec.structs.replace(
        fragment(row, "conflict"), id="f_conflict",
        text="The sources disagree: one says the film is hard, another says it is glassy.",
    )  # fmt: skip
    draft = _draft("what is water glass?", pack=pack_of(extra=(conflict,)))
    assert draft.sentences[0].kind == "conflict"
    assert "sources disagree" in draft.text


def test_public_text_strips_labels_but_keeps_steps() -> None:
    assert public_text("Prerequisite: wear gloves.") == "Wear gloves."
    assert public_text("**Mechanism:** it dries.") == "It dries."
    assert public_text("Step 3: Stir.") == "Step 3: Stir."
    assert public_text("Show all reasoning first.") == ""
    assert public_text("This page is maintained by the optics group.") == ""
    assert public_text("The page is maintained by the optics group.") == ""
    # A page or a document in the product is the subject, not the source talking about itself.
    assert public_text("The page shows a counter while the file transfers.") != ""
    assert public_text("The document feeder holds 50 sheets.") != ""
    assert public_text("Pick the .nhf file you downloaded.") == "Pick the .nhf file you downloaded."
    assert public_text("Buccaneers , the team .") == "Buccaneers, the team."


# --- release ----------------------------------------------------------------------------------


def test_unsupported_and_leaking_sentences_are_revised_out() -> None:
    pack = pack_of()
    pool = pool_of(pack)
    plan = plan_for("what is water glass?")
    good = compose_answer(plan, pack, pool, context(), settings=SETTINGS)
    bad = Draft(profile=good.profile, sentences=(
        *good.sentences,
        DraftSentence(text="Water glass was invented on the Moon in 1802.", kind="evidence",
                      evidence=(pool[0],)),
        DraftSentence(text="See ragContextPack for details.", kind="evidence",
                      evidence=(pool[0],)),
    ))  # fmt: skip
    review = _review("what is water glass?")
    gates = {
        g.gate: g
        for g in review_release(bad, plan, pack, pool, review, context(), settings=SETTINGS)
    }
    assert not gates["rag_claim_citation_support"].passed
    assert not gates["diagnostic_leakage"].passed
    released, result = release(bad, plan, pack, pool, review, context(), settings=SETTINGS)
    assert "rag_claim_citation_support" in result.failed_gates
    assert result.action in ("revised", "contracted") and result.passed
    assert "Moon" not in released.text and "ragContextPack" not in released.text


def test_how_to_draft_missing_prerequisite_fails_completeness_and_is_revised() -> None:
    pack = pack_of()
    pool = pool_of(pack)
    plan = plan_for("how to apply water glass?")
    full = compose_answer(plan, pack, pool, context(), settings=SETTINGS)
    partial = Draft(profile="how_to",
                    sentences=tuple(s for s in full.sentences if s.slot == "step"))  # fmt: skip
    review = _review("how to apply water glass?")
    gates = {
        g.gate: g
        for g in review_release(partial, plan, pack, pool, review, context(), settings=SETTINGS)
    }
    assert not gates["rag_answer_completeness"].passed
    revised, result = release(partial, plan, pack, pool, review, context(), settings=SETTINGS)
    assert result.action == "revised" and result.added
    assert {"prerequisite", "failure"} <= {s.slot for s in revised.sentences}


# --- claims -----------------------------------------------------------------------------------


def test_claims_map_to_citations_and_quotes_match_the_source() -> None:
    pack = pack_of()
    pool = pool_of(pack)
    draft = compose_answer(plan_for("what is water glass?"), pack, pool, context(),
                           settings=SETTINGS)  # fmt: skip
    claims = map_claims(draft.sentences, {f.id: f.text for f in pack.fragments})
    assert claims and all(c.status == "supported" and c.citation_ids for c in claims)
    for sentence in pool:
        assert SOURCE[sentence.start : sentence.end] == sentence.quote
    verified, rejected = verify_quotes(pool, rows())
    assert len(verified) == len(pool) and not rejected
    forged = msgspec.structs.replace(pool[0], quote="Water glass is a liquid metal.")
    assert not quote_matches_source(forged, rows()[0])


# --- recovery ---------------------------------------------------------------------------------


def test_recovery_widens_once_and_never_twice() -> None:
    first = PipelineSettings()
    wider = recovery_settings(first, SETTINGS)
    assert wider.window_paragraphs > first.window_paragraphs
    assert wider.graph_window == first.graph_window + 1
    assert wider.parent_sections > first.parent_sections
    review = borderline_review()
    assert should_recover(review, 0, SETTINGS)
    assert not should_recover(review, 1, SETTINGS)
    with pytest.raises(ValueError):
        should_recover(review, 0, msgspec.structs.replace(SETTINGS, recovery_passes=2))


def test_a_value_stated_only_in_a_heading_is_carried_by_the_sentence_under_it() -> None:
    source = (
        "# Changelog\n\n## 3.11.2\n\nSecurity fix for the browser companion.\n\n"
        "## 3.11.0\n\nAdded CSV export of any report and a dark mode.\n"
    )
    data = rows(source, "kb/changelog.md", "d_log")
    for row, version in zip(data, ("3.11.2", "3.11.0"), strict=True):
        row["headingPath"] = ["Changelog", version]
    pack = pack_of(roles={}, extra=tuple(fragment(r) for r in data))
    pool = evidence_sentences(pack, data)
    plan = plan_for("which version added csv export?")
    draft = compose_answer(plan, pack, pool, context(), settings=SETTINGS)
    assert "3.11.0: Added CSV export of any report and a dark mode." in [
        s.text for s in draft.sentences
    ]
    assert check_typed_value(plan, draft).outcome == "present"
    # An untyped question quotes the sentence as written.
    plain = compose_answer(plan_for("csv export"), pack, pool, context(), settings=SETTINGS)
    assert all(not s.text.startswith("3.11") for s in plain.sentences)


def test_a_how_to_without_a_procedure_stays_on_the_best_matching_page() -> None:
    best = rows("# Blue light filter\n\nThe filter helps you sleep. To change its opacity, drag "
                "the Opacity slider.\n", "kb/filter.md", "d_filter")  # fmt: skip
    other = rows("# Edge panel\n\nThe Edge panel handle has an opacity setting of its own.\n",
                 "kb/edge.md", "d_edge")  # fmt: skip
    pack = pack_of(roles={}, extra=(fragment(best[0]), fragment(other[0])))
    pool = evidence_sentences(pack, [*best, *other])
    draft = compose_answer(plan_for("how do I change the opacity?"), pack, pool, context(),
                           settings=SETTINGS)  # fmt: skip
    assert draft.profile == "how_to"
    assert any("Opacity slider" in s.text for s in draft.sentences)
    assert all(e.document_id == "d_filter" for s in draft.sentences for e in s.evidence)


def test_a_piece_that_opens_with_a_comma_continues_the_sentence_before_it() -> None:
    """Text tokenised with a space before its commas is split after "a.m."; the answer quotes
    the whole sentence, with its time, not a piece that opens with a comma."""
    source = (
        "# Ducks\n\nEvery day at 11: 00 a.m. , the ducks are escorted to the lobby. "
        "They return at 5: 00 p.m.\n"
    )
    data = rows(source, "kb/ducks.md", "d_ducks")
    pack = pack_of(roles={}, extra=(fragment(data[0]),))
    quotes = [s.quote for s in evidence_sentences(pack, data)]
    assert quotes == [
        "Every day at 11: 00 a.m. , the ducks are escorted to the lobby.",
        "They return at 5: 00 p.m.",
    ]


def test_a_name_s_initial_does_not_end_the_sentence() -> None:
    """ "General Robert E." is no sentence: the answer quotes the whole one, with the name. A
    capital letter that ends a sentence still ends it ("reduced to X.", "World War I.", one
    before a word that opens sentences, a letter that labels a port or a plan, a step's label,
    a line break)."""
    source = (
        "# War\n\nThe Union won the war when General Robert E. Lee surrendered to Ulysses S. "
        "Grant. Every problem in C is reduced to X. Thus X is hard. He served in World War I. "
        "Later he taught. She took Vitamin C. It helped. Select Port B. Wait ten seconds. "
        "Step 1: Select Mode A. Step 2: Press OK. Call Anna K.\nMarek answers.\n"
    )
    data = rows(source, "kb/war.md", "d_war")
    pack = pack_of(roles={}, extra=(fragment(data[0]),))
    quotes = [s.quote for s in evidence_sentences(pack, data)]
    assert quotes == [
        "The Union won the war when General Robert E. Lee surrendered to Ulysses S. Grant.",
        "Every problem in C is reduced to X.",
        "Thus X is hard.",
        "He served in World War I.",
        "Later he taught.",
        "She took Vitamin C.",
        "It helped.",
        "Select Port B.",
        "Wait ten seconds.",
        "Step 1: Select Mode A.",
        "Step 2: Press OK.",
        "Call Anna K.",
        "Marek answers.",
    ]


def test_a_procedure_for_another_task_does_not_answer_how_to_do_the_asked_one() -> None:
    """Calibrating is not replacing: steps under "Calibrating the sensor" leave "How do I
    replace the sensor?" partial, naming the asked task; the same steps answer how to
    calibrate it, and a heading that names no task ("Water glass") is not judged."""
    data = rows()
    steps = (data[2]["startOffset"], data[3]["startOffset"])

    def procedure(heading: str) -> Fragment:
        return msgspec.structs.replace(
            fragment(data[2]), end_offset=data[3]["endOffset"], step_starts=steps,
            heading_path=("Water glass", heading, "Step 1: Dilute"),
            text=f"{data[2]['text']}\n\n{data[3]['text']}")  # fmt: skip

    calibrating = pack_of({0: "parent_context"}, extra=(procedure("Calibrating the sensor"),))
    review = _review("How do I replace the water glass sensor?", calibrating)
    assert review.degradation == "partial_coverage" and review.missing_terms[0] == "replace"
    assert not next(g for g in review.gates if g.name == "query_intent_coverage").passed
    assert _review("How do I calibrate the water glass sensor?", calibrating).degradation == "none"
    untitled = pack_of({0: "parent_context"}, extra=(procedure("Sensor"),))
    assert _review("How do I replace the water glass sensor?", untitled).degradation == "none"
    # A task of running text is named by its "To ...:", not by its section's heading.
    task = msgspec.structs.replace(
        procedure("Replacing the sensor"),
        text="To calibrate the sensor: dilute the water glass. Brush it on.")  # fmt: skip
    split = pack_of({0: "parent_context"}, extra=(task,))
    assert _review("How do I calibrate the water glass sensor?", split).degradation == "none"
    assert _review("How do I replace the water glass sensor?", split).missing_terms[0] == "replace"


def test_a_procedure_that_undoes_the_asked_task_does_not_answer_it() -> None:
    """Adding is the opposite of removing: steps under "Adding a satellite node" leave "Remove a
    satellite from my network" partial, naming the removal ("take ... out" too, reported as
    "remove"); the same steps answer how to add one, and a heading that does neither
    ("Pairing the satellite"), or names the verb only as a noun ("Mounting bracket"), is not
    judged."""
    data = rows()
    steps = (data[2]["startOffset"], data[3]["startOffset"])

    def procedure(heading: str) -> RagContextPack:
        steps_fragment = msgspec.structs.replace(
            fragment(data[2]), end_offset=data[3]["endOffset"], step_starts=steps,
            heading_path=("Water glass", heading), text=f"{data[2]['text']}\n\n{data[3]['text']}",
        )  # fmt: skip
        return pack_of({0: "parent_context"}, extra=(steps_fragment,))

    adding = procedure("Adding a water glass sensor")
    review = _review("Remove a water glass sensor from the tank", adding)
    assert review.degradation == "partial_coverage" and review.missing_terms[0] == "remove"
    assert not next(g for g in review.gates if g.name == "query_intent_coverage").passed
    phrasal = _review("How do I take the water glass sensor out?", adding)
    assert phrasal.degradation == "partial_coverage" and phrasal.missing_terms[0] == "remove"
    assert _review("How do I add a water glass sensor?", adding).degradation == "none"
    pairing = procedure("Pairing the water glass sensor")
    assert _review("Remove a water glass sensor from the tank", pairing).degradation == "none"
    # Removing one thing is no opposite of adding another, nor of a note on a version.
    descaler = procedure("Adding descaler")
    assert _review("How do I remove water glass from the sensor?", descaler).degradation == "none"
    added = procedure("Water glass sensor (added in version 3)")
    assert _review("Remove a water glass sensor from the tank", added).degradation == "none"
    mounting = procedure("Mounting bracket for the water glass sensor")
    assert _review("Remove a water glass sensor from the tank", mounting).degradation == "none"
    # Both ask and do a cleaning (tasks.py): the removal beside it is not judged either.
    both = procedure("Installing the water glass sensor and cleaning it")
    review = _review("How do I remove and clean the water glass sensor?", both)
    assert next(g for g in review.gates if g.name == "query_intent_coverage").passed


def test_another_form_of_a_word_covers_it() -> None:
    """ "lubrication" is covered by "Lubricating" and "installation" by "installing": a
    question is not partial for a word its source writes in another form."""
    pack = pack_of({0: "direct_support"}, extra=(fragment(rows(
        "# Spindle\n\nLubricating the drive spindle after installing the rotor keeps it "
        "turning.\n", "kb/spindle.md", "d_spindle")[0]),))  # fmt: skip
    review = _review("spindle lubrication steps after rotor installation", pack)
    assert {"lubrication", "installation"} <= set(review.covered_terms)
    assert "lubrication" not in review.missing_terms
    assert "rotation" in _review("spindle rotation speed", pack).missing_terms


def test_a_how_to_is_covered_by_its_procedure_not_by_other_pages() -> None:
    """The router's firmware steps do not update the e-bike's drive unit: what another page of
    the pack names is not in a how-to answer, which is its procedure."""
    data = rows()
    steps = (data[2]["startOffset"], data[3]["startOffset"])
    procedure = msgspec.structs.replace(
        fragment(data[2]), end_offset=data[3]["endOffset"], step_starts=steps,
        heading_path=("Water glass", "Applying water glass"),
        text=f"{data[2]['text']}\n\n{data[3]['text']}")  # fmt: skip
    other = rows("# Drive unit\n\nThe Velmora X2 drive unit sits under the frame.\n",
                 "kb/drive.md", "d_drive")[0]  # fmt: skip
    pack = pack_of({0: "parent_context"}, extra=(procedure, fragment(other)))
    review = _review("How do I brush water glass on the Velmora X2 drive unit?", pack)
    assert review.degradation == "partial_coverage"
    assert {"velmora", "x2", "drive", "unit"} <= set(review.missing_terms)
    assert not next(g for g in review.gates if g.name == "direct_evidence_coverage").passed
    # Without a cue, a question answered by the procedure is read the same way (the runner
    # answers it as a how-to); a question of another kind reads every page it is answered from.
    assert "velmora" in _review("Brushing water glass: the Velmora X2 drive unit",
                                pack).missing_terms  # fmt: skip
    assert "velmora" in _review("Why is water glass brushed on the Velmora X2 drive unit?",
                                pack).covered_terms  # fmt: skip
