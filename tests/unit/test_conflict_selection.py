"""Which conflicts a question's answer shows, the conflict's own sentence, and conflict and
qualified-fact fragments in the context pack."""

from __future__ import annotations

import msgspec
import pytest

from service.pipeline.augment import _conflict_fragment, _fact_fragment
from service.pipeline.budgets import BUDGETS
from service.pipeline.conflicts import (
    ConflictSettings,
    answer_shapes,
    conflict_text,
    scan_conflicts,
    select_conflicts,
)
from service.pipeline.context_pack import build_context_pack
from service.text.facts import FactSettings, Passage
from service.text.spans import citation_id
from tests.unit.conflict_fixtures import CATHEDRAL, CENSUS, SCHOOL, document, values

# --- selection and text -----------------------------------------------------------------------


def test_selection_keeps_direct_documents_or_subjects_named_by_the_question() -> None:
    passages = document("a.md", "The retry limit is 3.", "The retry limit is 5.") + document(
        "n.md", "The service port is 443.", "The service port is 8443."
    )
    conflicts = scan_conflicts(passages).conflicts
    direct_only = select_conflicts(conflicts, terms=["gauge"], direct_documents={"d:a.md"}, limit=3)
    assert [c.subject for c in direct_only] == ["retry limit"]
    named = select_conflicts(conflicts, terms=["port"], direct_documents=set(), limit=3)
    assert [c.subject for c in named] == ["service port"]
    assert select_conflicts(conflicts, terms=["gauge"], direct_documents=set(), limit=3) == []
    ranked = select_conflicts(conflicts, terms=["port"], direct_documents={"d:a.md"}, limit=1)
    assert [c.subject for c in ranked] == ["service port"]  # naming the subject ranks first


FILM = (
    "In the listings, the film The Squeeze ({year}) is a crime film directed by {director}, "
    "released by the studio "
    "with a score by Stanley Myers and photography by Gerry Fisher."
)


@pytest.mark.parametrize(
    ("question", "shapes"),
    [
        (["population", "broken", "bow"], {"figure"}),
        (["cathedral", "established"], {"year"}),
        (["director", "film", "squeeze"], {"name"}),
        (["justice", "dunn", "born"], {"year", "name"}),
        (["retry", "limit"], {"year", "figure", "name", "word"}),  # no word names a kind
    ],
)
def test_question_words_name_the_shape_of_the_answer(question: list[str], shapes: set[str]) -> None:
    assert answer_shapes(question) == shapes


def test_an_aligned_edit_counts_only_when_it_changes_what_the_question_asks() -> None:
    everything = {"d:a.md", "d:b.md"}

    def chosen(passages: list[Passage], terms: list[str]) -> list[tuple[str, ...]]:
        found = scan_conflicts(passages).conflicts
        picked = select_conflicts(found, terms=terms, direct_documents=everything, limit=3)
        return [c.values for c in picked]

    films = document("a.md", FILM.format(year=1977, director="Michael Apted")) + document(
        "b.md", FILM.format(year=1987, director="Michael Apted")
    )
    assert values(films) == [("Squeeze (1977", "Squeeze (1987")]
    # two films of one title: the year tells them apart, it is not a disagreement on who
    # directed one; a question about the year keeps it
    assert chosen(films, ["director", "film", "squeeze"]) == []
    assert chosen(films, ["film", "squeeze", "released"]) == [("Squeeze (1977", "Squeeze (1987")]
    edited = document("a.md", FILM.format(year=1977, director="Michael Apted")) + document(
        "b.md", FILM.format(year=1977, director="Ken Russell")
    )
    assert chosen(edited, ["director", "film", "squeeze"]) == [("Michael Apted", "Ken Russell")]


MEDAL = (
    "The Cross of Liberty was a medal established by Prime Minister Konstantin Päts on {date} "
    "to honour people for their service in the War of Independence."
)


def test_an_edited_day_and_month_is_a_date_not_a_count() -> None:
    def chosen(passages: list[Passage], terms: list[str]) -> list[tuple[str, ...]]:
        found = scan_conflicts(passages).conflicts
        picked = select_conflicts(found, terms=terms, direct_documents={"d:a.md"}, limit=3)
        return [c.values for c in picked]

    medal = document("a.md", MEDAL.format(date="24 February 1919")) + document(
        "b.md", MEDAL.format(date="12 March 1920")
    )
    # "24" starts the changed run, yet the run is a date: a question about when keeps it
    assert chosen(medal, ["cross", "liberty", "established"]) == [
        ("24 February 1919", "12 March 1920")
    ]
    # a run of figures that merely holds a year is still figures, which "when" does not ask
    census = CENSUS.format(people="909 2010", households="335", families="268")
    edited = CENSUS.format(people="1,500 2020", households="335", families="268")
    figures = document("a.md", census) + document("b.md", edited)
    assert chosen(figures, ["township", "established"]) == []
    assert chosen(figures, ["population", "township"]) == [("909 2010", "1,500 2020")]


def test_a_near_copy_that_replaces_a_plain_word_conflicts() -> None:
    passages = document("a.md", SCHOOL.format(kind="academy")) + document(
        "b.md", SCHOOL.format(kind="university")
    )
    [conflict] = scan_conflicts(passages).conflicts
    assert conflict.values == ("academy", "university")
    assert "takes its name from" in conflict.sides[1].sentence
    # the edit is framed like an aligned fact: `aligned_context_tokens` words each side
    assert conflict.subject == "in 1954 the … takes its name"
    narrow = ConflictSettings(facts=FactSettings(aligned_context_tokens=2))
    [framed] = scan_conflicts(passages, narrow).conflicts
    assert framed.subject == "1954 the … takes its"
    asks_kind = select_conflicts(
        [conflict], terms=["type", "institution", "fontbonne"], direct_documents={"d:a.md"},
        limit=3,
    )  # fmt: skip
    assert asks_kind == [conflict]
    # a question about a name or a year is not answered by a plain word
    for terms in (["founder", "fontbonne"], ["fontbonne", "established"]):
        assert select_conflicts([conflict], terms=terms, direct_documents={"d:a.md"}, limit=3) == []


def test_plain_word_edits_need_a_near_copy_one_spelling_and_one_scope() -> None:
    spelling = document("a.md", SCHOOL.format(kind="academy")) + document(
        "b.md", SCHOOL.format(kind="acadamy")
    )
    assert values(spelling) == []
    other_page = SCHOOL.format(kind="university").replace(
        "Its students come from across the borough and most of them continue",
        "The campus lies north of the river, where a chapel and a library were built",
    )
    template = document("a.md", SCHOOL.format(kind="academy")) + document("b.md", other_page)
    assert values(template) == []
    text = (
        "In the {env} environment the nightly export job writes its files to the shared archive "
        "bucket and keeps them for the whole retention period agreed with the owners."
    )
    scoped = document("a.md", text.format(env="staging")) + document(
        "b.md", text.format(env="production")
    )
    assert values(scoped) == []


def test_conflict_text_states_every_value_with_its_source() -> None:
    passages = document("bench.md", "Intro.", "The calibration tolerance is ±0.10 mm.") + document(
        "field.md", "The calibration tolerance is ±0.25 mm."
    )
    [conflict] = scan_conflicts(passages).conflicts
    text = conflict_text(conflict)
    assert text == (
        "The sources disagree on the calibration tolerance: bench.md (line 3) gives ±0.10 mm "
        '("The calibration tolerance is ±0.10 mm."), while field.md (line 1) gives ±0.25 mm '
        '("The calibration tolerance is ±0.25 mm.").'
    )


def test_long_sentences_are_quoted_around_the_value() -> None:
    prefix = "word " * 60
    passages = document("a.md", prefix + CATHEDRAL.format(year=1856)) + document(
        "b.md", prefix + CATHEDRAL.format(year=1900)
    )
    [conflict] = scan_conflicts(passages).conflicts
    text = conflict_text(conflict, quote_chars=80)
    assert "1856" in text and "1900" in text
    assert "…" in text and "word word word word word word word word word word word" not in text


def test_values_per_conflict_are_capped() -> None:
    sentences = [f"The retry limit is {n}." for n in (1, 2, 3, 4, 5, 6)]
    settings = ConflictSettings(max_values_per_conflict=3)
    [conflict] = scan_conflicts(document("a.md", *sentences), settings).conflicts
    assert conflict.values == ("1", "2", "3")


# --- fragments (augment) and the context pack ----------------------------------------------------


def test_conflict_fragment_survives_a_direct_span_over_its_own_sentence() -> None:
    text = "The retry limit is 3. The retry limit is 5."
    passages = document("a.md", text)
    [conflict] = scan_conflicts(passages).conflicts
    fragment = _conflict_fragment(conflict, 0, "kp", 160)
    assert fragment.role == "conflict" and fragment.source_boundary == "full_document"
    assert fragment.conflict_values == ("3", "5")
    assert (fragment.start_offset, fragment.end_offset) == (0, len("The retry limit is 3."))
    assert fragment.citation_ids == (
        citation_id("a.md#0", 0, 21),
        citation_id("a.md#0", 22, len(text)),
    )
    direct = msgspec.structs.replace(
        fragment, id="f_direct", role="direct_support", text=text, end_offset=len(text),
        citation_ids=("c_span",), conflict_values=(), source_boundary="span",
    )  # fmt: skip
    observed = frozenset({"c_span", *fragment.citation_ids})
    pack = build_context_pack([direct, fragment], BUDGETS["base"], observed_ids=observed)
    assert [f.role for f in pack.fragments] == ["direct_support", "conflict"]
    assert pack.source_boundary == "full_document"


def test_qualified_fact_fragment_is_its_exact_sentence() -> None:
    text = "Intro words here. In the staging environment, the retry limit is 3."
    passages = document("a.md", text) + document(
        "b.md", "In the production environment, the retry limit is 5."
    )
    [qualified] = scan_conflicts(passages).qualified
    fragment = _fact_fragment(qualified.sides[0], None, 1.5)
    assert text[fragment.start_offset : fragment.end_offset] == fragment.text
    assert fragment.text == "In the staging environment, the retry limit is 3."
    assert fragment.role == "direct_support" and fragment.source_boundary == "full_document"
