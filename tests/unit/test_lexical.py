"""Scope-local BM25 (service/pipeline/lexical.py): the tokenizer, the query's clauses and the
arithmetic, checked against a direct computation from the formula."""

from __future__ import annotations

import math

import pytest

from service.pipeline.lexical import (
    BM25_B,
    BM25_K1,
    FieldStats,
    LexicalRow,
    bm25_scores,
    query_clauses,
)
from service.text.tokens import analyze, field_text


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("The Quick-Brown fox", ["the", "quick", "brown", "fox"]),
        ("Don't stop rock'n'roll, dogs' 'quoted'", ["don't", "stop", "rock'n'roll", "dogs",
                                                    "quoted"]),
        ("U.S.A. e.g. file.txt end.", ["u.s.a", "e.g", "file.txt", "end"]),
        ("3.14 1,000 2.0.1 1:30 a,b a:b", ["3.14", "1,000", "2.0.1", "1", "30", "a", "b", "a:b"]),
        ("foo_bar ___ abc123 tcp/ip", ["foo_bar", "abc123", "tcp", "ip"]),
        ("café naïve e\u0301te हिन्दी", ["café", "naïve", "e\u0301te", "हिन्दी"]),
        ("水玻璃是什么 waterglass是", ["水", "玻", "璃", "是", "什", "么", "waterglass", "是"]),
        ("カタカナ ひらがな 한국어", ["カタカナ", "ひ", "ら", "が", "な", "한국어"]),
        ("İstanbul ΟΔΟΣ", ["istanbul", "οδοσ"]),  # Java's per-character lower case
        ("> Hive > Queen", ["hive", "queen"]),
    ],
)  # fmt: skip
def test_analyze_follows_the_standard_analyzer(text: str, tokens: list[str]) -> None:
    assert analyze(text) == tokens


def test_long_tokens_are_split_like_lucene() -> None:
    assert analyze("x" * 600) == ["x" * 255, "x" * 255, "x" * 90]


def test_field_text_counts_tokens_and_phrases_without_overlap() -> None:
    stored = field_text(analyze("bees make honey; bees make wax. Honey bees"))
    assert stored.count(field_text(["bees"])) == 3
    assert stored.count(field_text(["bees", "make"])) == 2
    assert stored.count(field_text(["honey", "bees"])) == 2  # punctuation is no gap (Lucene)
    assert stored.count(field_text(["bee"])) == 0  # whole tokens only
    assert field_text(["a", "a", "a"]).count(field_text(["a", "a"])) == 1


def test_query_clauses_read_terms_and_phrases_as_the_query_parser() -> None:
    clauses = query_clauses(
        ["tcp/ip", "water", "e-mail", "mail", "Water"], ["water glass", "Single", "水玻璃"]
    )
    assert clauses == (
        ("tcp",), ("ip",), ("water",), ("e",), ("mail",), ("water", "glass"), ("水", "玻", "璃")
    )  # fmt: skip
    assert query_clauses([], []) == ()
    assert query_clauses(["--", " "], ["   "]) == ()


def _reference(
    documents: list[tuple[str, str]], clauses: list[tuple[str, ...]]
) -> dict[str, float]:
    """BM25 straight from the formula over (text, heading) documents, one field at a time."""
    scores = {str(i): 0.0 for i in range(len(documents))}
    for f in range(2):
        fields = [analyze(d[f]) for d in documents]
        with_tokens = [t for t in fields if t]
        n = len(with_tokens)
        avgdl = sum(map(len, with_tokens)) / n
        for clause in clauses:
            counts = [field_text(t).count(field_text(clause)) for t in fields]
            df = sum(1 for c in counts if c)
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            for i, (tokens, tf) in enumerate(zip(fields, counts, strict=True)):
                if tf:
                    norm = BM25_K1 * (1 - BM25_B + BM25_B * len(tokens) / avgdl)
                    scores[str(i)] += idf * tf / (tf + norm)
    return {k: v for k, v in scores.items() if v > 0}


DOCUMENTS = [
    ("Bees make honey from nectar. Honey is stored in the hive.", "Hive > Honey"),
    ("The queen bee lays eggs; worker bees feed the larvae.", "Hive > Queen"),
    ("Smoke calms the bees before the hive is opened.", "Handling"),
    ("Nectar flows in spring.", ""),
    ("Wax is made by young worker bees. Honey bees store honey in wax cells.", "Hive > Wax"),
]


def _rows(clauses: list[tuple[str, ...]]) -> tuple[list[LexicalRow], list[FieldStats]]:
    rows, stats = [], []
    for f in range(2):
        fields = [analyze(d[f]) for d in DOCUMENTS]
        stats.append(FieldStats(sum(1 for t in fields if t), sum(map(len, fields))))
    for i, document in enumerate(DOCUMENTS):
        fields = [field_text(analyze(text)) for text in document]
        frequencies = tuple(tuple(text.count(field_text(c)) for c in clauses) for text in fields)
        if any(any(counts) for counts in frequencies):  # the candidates: a clause matches
            lengths = tuple(len(analyze(text)) for text in document)
            rows.append(LexicalRow(str(i), f"d{i}", frequencies, lengths))
    return rows, stats


def test_bm25_scores_equal_the_formula_with_scope_statistics() -> None:
    clauses = [("honey",), ("hive",), ("worker", "bees"), ("nectar",)]
    rows, stats = _rows(clauses)
    scored = bm25_scores(rows, stats, len(clauses))
    reference = _reference(DOCUMENTS, clauses)
    assert {p: s for p, _, s in scored} == pytest.approx(reference, rel=1e-12)
    assert [s for _, _, s in scored] == sorted((s for _, _, s in scored), reverse=True)
    assert scored[0][:2] == ("0", "d0")  # honey twice, hive in text and heading
    assert "3" in {p for p, _, _ in scored}  # nectar only


def test_bm25_depends_on_the_statistics_and_not_on_row_order() -> None:
    clauses = [("bees",), ("honey",)]
    rows, stats = _rows(clauses)
    forward = bm25_scores(rows, stats, len(clauses))
    assert bm25_scores(list(reversed(rows)), stats, len(clauses)) == forward
    # A larger scope (more paragraphs, longer on average) gives other scores: the statistics are
    # what makes them the scope's own.
    bigger = [FieldStats(s.documents * 10, s.tokens * 20) for s in stats]
    assert bm25_scores(rows, bigger, len(clauses)) != forward


def test_bm25_ties_order_by_paragraph_id_and_rows_without_a_clause_score_nothing() -> None:
    stats = [FieldStats(4, 40), FieldStats(0, 0)]
    rows = [
        LexicalRow("b", "d", ((1,), (0,)), (10, 0)),
        LexicalRow("a", "d", ((1,), (0,)), (10, 0)),
        LexicalRow("c", "d", ((0,), (0,)), (10, 0)),
    ]
    scored = bm25_scores(rows, stats, 1)
    assert [p for p, _, _ in scored] == ["a", "b"]
    idf = math.log(1 + (4 - 2 + 0.5) / (2 + 0.5))
    assert scored[0][2] == pytest.approx(idf * 1 / (1 + BM25_K1))  # dl = avgdl: norm is k1
