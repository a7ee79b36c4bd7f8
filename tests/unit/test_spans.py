import hashlib

import pytest

from service.pipeline.plan import key_terms
from service.text.spans import (
    Segment,
    Sentence,
    best_span,
    citation_id,
    cjk_bigrams,
    mentions_any,
    relevant_segments,
    split_sentences,
)


def _texts(text: str) -> list[str]:
    sentences = split_sentences(text)
    for sentence in sentences:
        assert text[sentence.start : sentence.end] == sentence.text
        assert sentence.text == sentence.text.strip()
    return [sentence.text for sentence in sentences]


# --- split_sentences ---------------------------------------------------------------------------


def test_english_sentences_with_exact_offsets() -> None:
    text = "  First one. Second one!  Third one?\nFourth."
    assert split_sentences(text) == [
        Sentence(2, 12, "First one."),
        Sentence(13, 24, "Second one!"),
        Sentence(26, 36, "Third one?"),
        Sentence(37, 44, "Fourth."),
    ]


def test_soft_line_break_without_punctuation_does_not_end_a_sentence() -> None:
    assert _texts("A sentence that wraps\nonto the next line. Done.") == [
        "A sentence that wraps\nonto the next line.",
        "Done.",
    ]


def test_decimals_and_versions_are_not_sentence_ends() -> None:
    assert _texts("Tolerance is ±0.10 mm. Next sentence.") == [
        "Tolerance is ±0.10 mm.",
        "Next sentence.",
    ]
    assert _texts("HTTP/1.1 is older. HTTP/2 is newer.") == [
        "HTTP/1.1 is older.",
        "HTTP/2 is newer.",
    ]
    assert _texts("Use v1.2 or 3.14 here. See example.com. Done.") == [
        "Use v1.2 or 3.14 here.",
        "See example.com.",
        "Done.",
    ]


def test_abbreviations_are_not_sentence_ends() -> None:
    text = "Use a graph, e.g. Neo4j, i.e. Cypher. Dr. Smith compares A vs. B. See No. 5 now."
    assert _texts(text) == [
        "Use a graph, e.g. Neo4j, i.e. Cypher.",
        "Dr. Smith compares A vs. B.",
        "See No. 5 now.",
    ]


def test_lower_case_after_a_period_continues_the_sentence() -> None:
    assert _texts("Apples, pears, etc. are fruit. Then more.") == [
        "Apples, pears, etc. are fruit.",
        "Then more.",
    ]


def test_numbered_abbreviation_needs_a_number() -> None:
    assert _texts("The answer is no. Next one.") == ["The answer is no.", "Next one."]


def test_abbreviation_must_be_a_whole_word() -> None:
    assert _texts("It came 1st. Then it left.") == ["It came 1st.", "Then it left."]


def test_chinese_sentences_with_exact_offsets() -> None:
    text = "水玻璃是一种粘结剂。它的模数很重要！为什么？因为；如此"
    assert split_sentences(text) == [
        Sentence(0, 10, "水玻璃是一种粘结剂。"),
        Sentence(10, 18, "它的模数很重要！"),
        Sentence(18, 22, "为什么？"),
        Sentence(22, 25, "因为；"),
        Sentence(25, 27, "如此"),
    ]


def test_mixed_english_and_chinese() -> None:
    text = "Neo4j 是图数据库。It supports Cypher 查询. 它很快！Done.下一句。"
    assert _texts(text) == [
        "Neo4j 是图数据库。",
        "It supports Cypher 查询.",
        "它很快！",
        "Done.",
        "下一句。",
    ]


def test_closing_quotes_and_emphasis_stay_with_their_sentence() -> None:
    assert _texts('He said "stop." Then **Note.** 他说“好。”然后') == [
        'He said "stop."',
        "Then **Note.**",
        "他说“好。”",
        "然后",
    ]


def test_list_items_are_separate_units() -> None:
    text = (
        "Steps:\n- first item. Still first.\n- second item\n  continued\n1. one\n2) two\n\nAfter."
    )
    assert _texts(text) == [
        "Steps:",
        "- first item.",
        "Still first.",
        "- second item\n  continued",
        "1. one",
        "2) two",
        "After.",
    ]


def test_numbered_list_marker_is_not_a_sentence_end() -> None:
    assert _texts("1. Install it\n2. Run it") == ["1. Install it", "2. Run it"]


def test_table_rows_are_units_and_the_delimiter_row_is_skipped() -> None:
    text = "| a | b |\n|---|:-:|\n| 1. x | 2. y |\nleft | right\n\nText."
    assert _texts(text) == ["| a | b |", "| 1. x | 2. y |", "left | right", "Text."]


def test_table_without_outer_pipes() -> None:
    assert _texts("a | b\n--- | ---\n1 | 2") == ["a | b", "1 | 2"]


def test_code_fence_is_one_unit() -> None:
    text = "Intro text.\n```python\nprint('a. B')\n\nx = 1\n```\nAfter code. More."
    code = "```python\nprint('a. B')\n\nx = 1\n```"
    assert _texts(text) == ["Intro text.", code, "After code.", "More."]
    assert split_sentences(text)[1].start == text.index("```")


def test_unclosed_fence_runs_to_the_end() -> None:
    assert _texts("Text.\n~~~\ncode. More code.\n") == ["Text.", "~~~\ncode. More code."]


def test_heading_line_is_its_own_unit() -> None:
    assert _texts("## Setup\nInstall it. Then run") == ["## Setup", "Install it.", "Then run"]


def test_empty_and_blank_text_have_no_sentences() -> None:
    assert split_sentences("") == []
    assert split_sentences(" \n\n\t") == []


# --- best_span ---------------------------------------------------------------------------------

PROSE = "Alpha is first. Beta is about Neo4j. Gamma covers Cypher queries. Delta ends."


def test_best_span_picks_the_sentence_with_the_terms() -> None:
    span = best_span(PROSE, ["cypher"])
    assert span.text == "Gamma covers Cypher queries."
    assert PROSE[span.start : span.end] == span.text
    assert span.sentence_indexes == (2,)
    assert span.score == 1.0


def test_best_span_extends_when_the_neighbour_adds_terms() -> None:
    span = best_span(PROSE, ["neo4j", "cypher"])
    assert span.text == "Beta is about Neo4j. Gamma covers Cypher queries."
    assert span.sentence_indexes == (1, 2)
    assert span.score == 1.0


def test_best_span_does_not_extend_without_new_terms() -> None:
    text = "Neo4j stores graphs. Neo4j is fast. Other things."
    span = best_span(text, ["neo4j"])
    assert span.sentence_indexes == (0,)
    assert span.text == "Neo4j stores graphs."


def test_best_span_extends_at_most_max_sentences() -> None:
    text = "Uses alpha. Uses beta. Uses gamma."
    assert best_span(text, ["alpha", "beta", "gamma"]).sentence_indexes == (0, 1)
    wide = best_span(text, ["alpha", "beta", "gamma"], max_sentences=3)
    assert (wide.text, wide.score) == (text, 1.0)
    single = best_span(text, ["alpha", "beta", "gamma"], max_sentences=1)
    assert single.sentence_indexes == (0,)
    assert single.score == pytest.approx(1 / 3)


def test_best_span_prefers_the_better_neighbour() -> None:
    text = "Has alpha. Has beta and gamma and delta. Has epsilon."
    span = best_span(text, ["beta", "gamma", "delta", "epsilon", "alpha"])
    assert span.sentence_indexes == (0, 1)
    span = best_span(text, ["beta", "gamma", "delta", "epsilon"])
    assert span.sentence_indexes == (1, 2)


def test_best_span_respects_max_chars() -> None:
    text = "Neo4j stores graphs. " + "Cypher " * 20 + "queries."
    span = best_span(text, ["neo4j", "cypher"], max_chars=60)
    assert span.text == "Neo4j stores graphs."
    assert span.score == 0.5
    assert best_span(text, ["neo4j", "cypher"], max_chars=600).score == 1.0


def test_one_sentence_longer_than_max_chars_is_kept_whole() -> None:
    text = "Neo4j " + "is a graph database " * 10 + "indeed. Short."
    span = best_span(text, ["neo4j"], max_chars=20)
    assert span.sentence_indexes == (0,)
    assert len(span.text) > 20
    assert text[span.start : span.end] == span.text


def test_terms_match_as_whole_words_case_insensitively() -> None:
    text = "The index is rebuilt. Indexes are fast. INDEX again."
    assert best_span(text, ["indexes"]).sentence_indexes == (1,)
    assert best_span(text, ["Index"]).sentence_indexes == (0,)


def test_ascii_terms_match_next_to_chinese() -> None:
    text = "第一句。我们用Neo4j实现图谱。"
    span = best_span(text, ["neo4j"])
    assert span.text == "我们用Neo4j实现图谱。"


def test_single_character_terms_weigh_less() -> None:
    text = "Plan x here. The graph here."
    span = best_span(text, ["x", "graph"], max_sentences=1)
    assert span.sentence_indexes == (1,)
    assert span.score == pytest.approx(2 / 3)


def test_ties_go_to_the_earliest_sentence() -> None:
    text = "One graph here. Another graph there."
    assert best_span(text, ["graph"]).sentence_indexes == (0,)


def test_no_match_gives_the_first_sentence_with_score_zero() -> None:
    span = best_span("  Nothing here. Or here.", ["neo4j"])
    assert (span.start, span.end, span.text, span.score) == (2, 15, "Nothing here.", 0.0)
    assert span.sentence_indexes == (0,)
    assert best_span("Nothing here. Or here.", []).sentence_indexes == (0,)


def test_best_span_of_empty_text() -> None:
    span = best_span("", ["x"])
    assert (span.start, span.end, span.text, span.score, span.sentence_indexes) == (
        0,
        0,
        "",
        0.0,
        (),
    )


def test_best_span_with_a_chinese_term() -> None:
    text = "硅酸盐材料种类很多。水玻璃是一种常用的粘结剂，模数决定性能。其他内容。"
    span = best_span(text, ["水玻璃"])
    assert span.text == "水玻璃是一种常用的粘结剂，模数决定性能。"
    assert text[span.start : span.end] == span.text
    assert span.score == 1.0


def test_chinese_question_terms_match_by_bigrams() -> None:
    text = "硅酸盐材料种类很多。水玻璃的模数决定其粘结性能。其他内容。"
    span = best_span(text, ["水玻璃模数"])  # no sentence holds the term whole: its bigrams
    assert span.text == "水玻璃的模数决定其粘结性能。"
    assert 0 < span.score < 1
    # the question's key terms carry no question words, so the sentence covers them all
    terms = key_terms("水玻璃的模数是什么")
    assert terms == ("水玻璃", "模数")
    assert best_span(text, terms).score == 1.0


def test_mixed_chinese_term_keeps_its_latin_word() -> None:
    text = "图数据库很多。Neo4j是图数据库。"
    assert best_span(text, ["neo4j图数据库"]).text == "Neo4j是图数据库。"


def test_best_span_rejects_bad_limits() -> None:
    with pytest.raises(ValueError):
        best_span("A.", ["a"], max_sentences=0)
    with pytest.raises(ValueError):
        best_span("A.", ["a"], max_chars=0)


# --- cjk_bigrams and citation_id ---------------------------------------------------------------


def test_cjk_bigrams() -> None:
    assert cjk_bigrams("水玻璃 abc 模 数据，数据") == ["水玻", "玻璃", "模", "数据"]
    assert cjk_bigrams("no chinese") == []


def test_citation_id_is_stable_and_distinct() -> None:
    first = citation_id("p_abc", 10, 42)
    assert first == citation_id("p_abc", 10, 42)
    assert first.startswith("c_")
    assert len(first) == 18
    assert all(ch in "0123456789abcdef" for ch in first[2:])
    others = {
        citation_id("p_abc", 10, 43),
        citation_id("p_abc", 11, 42),
        citation_id("p_x", 10, 42),
    }
    assert first not in others
    assert len(others) == 3
    # the separator keeps ("p_1", 12, 3) apart from ("p_11", 2, 3)
    assert citation_id("p_1", 12, 3) != citation_id("p_11", 2, 3)


def test_citation_id_does_not_depend_on_the_run() -> None:
    digest = hashlib.sha256(b"p_abc\x0010\x0042\x00").hexdigest()
    assert citation_id("p_abc", 10, 42) == "c_" + digest[:16]


# --- relevant_segments -------------------------------------------------------------------------


def _runs(segments: list[Segment]) -> list[tuple[int, int]]:
    return [(segment.first, segment.last) for segment in segments]


def test_run_of_three_relevant_paragraphs_beats_an_isolated_one() -> None:
    scores = [0.9, 0.0, 0.0, 0.7, 0.7, 0.7, 0.0]
    segments = relevant_segments(scores, threshold=0.4)
    assert _runs(segments) == [(3, 5), (0, 0)]
    assert segments[0].score == pytest.approx(0.9)
    assert segments[1].score == pytest.approx(0.5)


def test_weak_paragraph_between_strong_ones_is_bridged() -> None:
    segments = relevant_segments([0.9, 0.2, 0.9], threshold=0.4)
    assert _runs(segments) == [(0, 2)]
    assert segments[0].score == pytest.approx(0.8)


def test_deep_gap_is_not_bridged() -> None:
    assert _runs(relevant_segments([0.9, 0.0, 0.0, 0.8], threshold=0.4)) == [(0, 0), (3, 3)]


def test_segments_start_and_end_on_relevant_paragraphs() -> None:
    assert _runs(relevant_segments([0.0, 0.5, 0.9, 0.5, 0.0], threshold=0.5)) == [(2, 2)]


def test_max_length_is_respected() -> None:
    segments = relevant_segments([1.0] * 10, threshold=0.5, max_length=4, max_segments=5)
    assert _runs(segments) == [(0, 3), (4, 7), (8, 9)]
    assert all(segment.last - segment.first + 1 <= 4 for segment in segments)


def test_max_segments_is_respected_and_best_come_first() -> None:
    scores = [0.6, 0.0, 0.9, 0.0, 0.7, 0.0, 0.8]
    segments = relevant_segments(scores, threshold=0.5, max_segments=2)
    assert _runs(segments) == [(2, 2), (6, 6)]


def test_no_segment_when_every_score_is_below_threshold() -> None:
    assert relevant_segments([0.1, 0.2, 0.3], threshold=0.5) == []
    assert relevant_segments([0.5, 0.5], threshold=0.5) == []


def test_empty_input_has_no_segments() -> None:
    assert relevant_segments([], threshold=0.1) == []


def test_relevant_segments_rejects_bad_limits() -> None:
    with pytest.raises(ValueError):
        relevant_segments([1.0], threshold=0.0, max_length=0)
    with pytest.raises(ValueError):
        relevant_segments([1.0], threshold=0.0, max_segments=0)


@pytest.mark.parametrize(
    ("text", "terms", "expected"),
    [
        ("Water glass sets hard. It binds sand.", ["binds"], True),
        ("Water glass sets hard. It binds sand.", ["BINDS", "cement"], True),
        ("It unbinds the sand.", ["binds"], True),  # a substring is enough here
        ("Water glass sets hard.", ["cement", "mortar"], False),
        ("水玻璃是一种粘合剂。", ["粘合"], True),
        ("水玻璃是一种粘合剂。", ["水泥"], False),
    ],
)
def test_mentions_any_is_a_superset_of_best_span_matches(
    text: str, terms: list[str], expected: bool
) -> None:
    assert mentions_any(text, terms) is expected
    if not expected:
        assert best_span(text, terms).score == 0.0
