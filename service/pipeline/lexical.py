"""Scope-local BM25 for the full-text channel: the tokenizer shared by ingest and retrieval, the
query's clauses, and the scoring arithmetic.

Why: Lucene's BM25 statistics (document frequency, document count, average length) belong to a
whole index. With one full-text index shared by every scope, a scope's ranking, and even an
answer's status, depended on what other scopes held. Retrieval now scores a small scope exactly
here, from statistics of that scope alone, and a large one in the scope's own full-text index
(ingest/scope_index.py), so a scope's full-text scores are a function of its own content.

Small scopes (`PipelineSettings.exact_fulltext_max_paragraphs`), one read
(cypher/retrieval/fulltext_paragraphs_exact.cypher):
- every paragraph is stored with its tokens (`textTokens`, `headingTokens`: `field_text` of
  `analyze`, and their counts), written at ingest by the same function that analyses the query,
  and every document with its paragraphs' share of the statistics (`lexicalStats`), in the
  same transaction, so the scope's totals are a sum over its documents, read per question;
- the shared Lucene index only finds the candidates: every paragraph of the scope matching any
  clause, with the limit above the scope's paragraph count (read in the same statement), so the
  set is complete and does not depend on Lucene's scores; whether a paragraph matches depends
  on that paragraph alone;
- for each candidate the statement counts each clause in the stored tokens (`size(split(...))`
  over the wrapped token text: exact token and phrase matches);
- `bm25_scores` then computes Lucene's BM25 form (k1 1.2, b 0.75, idf log(1 + (N - df + 0.5) /
  (df + 0.5))) per field (paragraph text and heading path, as the index has them) and sums
  the fields, with df counted over the complete candidate set and N and the average length over
  the scope. Ties order by paragraph id.

Differences from the Lucene scores this replaces, all deliberate: lengths are exact (Lucene
keeps a one-byte approximation), a clause counts once however many question terms produce it,
a phrase's idf is its own document frequency (Lucene sums its words' idfs, which needs the df of
words the question does not ask for), and phrase occurrences do not overlap. `analyze` follows
Lucene's standard analyzer (Unicode word segmentation, lower case, no stop words) closely but
not exactly; where they differ, a paragraph Lucene does not match is missed, and a clause Lucene
matches that the stored tokens do not contain scores nothing. Both are per-paragraph facts, so
the scores still depend only on the scope.

Documents written before these fields existed (no `lexicalStats`) are tokenised on read,
with the same function, so their scores are the same; `kgs ingest` rewrites them once (the new
fields change their unit hash), after which no question pays for it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import msgspec

from service.text.tokens import analyze, field_text

if TYPE_CHECKING:
    from service.db.graph import Graph

__all__ = [
    "BM25_B",
    "BM25_K1",
    "Clause",
    "FieldStats",
    "LexicalRow",
    "bm25_scores",
    "exact_fulltext",
    "query_clauses",
]

BM25_K1 = 1.2
BM25_B = 0.75
Clause = tuple[str, ...]  # one token (a term) or several (a phrase)


def query_clauses(terms: Sequence[str], phrases: Sequence[str]) -> tuple[Clause, ...]:
    """The clauses of the full-text query `retrieval.lucene_query` builds from the same terms and
    phrases, as Lucene's query parser reads them: an unquoted term is each of its tokens
    ('tcp/ip': tcp, ip), a quoted phrase of several tokens is one phrase. Each clause once."""
    clauses: list[Clause] = [(t,) for term in terms if term.strip() for t in analyze(term)]
    for phrase in phrases:
        if phrase.strip() and (" " in phrase.strip() or not phrase.isascii()):
            tokens = tuple(analyze(phrase))
            if tokens:
                clauses.append(tokens)
    return tuple(dict.fromkeys(clauses))


class FieldStats(msgspec.Struct, frozen=True):
    """One indexed field over the whole scope: paragraphs with at least one token in it, and
    its tokens in all of them (N and N x average length of BM25)."""

    documents: int
    tokens: int


class LexicalRow(msgspec.Struct, frozen=True):
    """One candidate paragraph: per field, how often each clause occurs, and its length."""

    paragraph_id: str
    document_id: str
    frequencies: tuple[tuple[int, ...], ...]  # [field][clause]
    lengths: tuple[int, ...]  # [field] tokens


def bm25_scores(
    rows: Sequence[LexicalRow],
    fields: Sequence[FieldStats],
    clauses: int,
    *,
    k1: float = BM25_K1,
    b: float = BM25_B,
) -> list[tuple[str, str, float]]:
    """(paragraph id, document id, score) of every row that contains a clause, best first, ties
    by paragraph id. `rows` must hold every paragraph of the scope that contains any clause in
    any field: a clause's document frequency is counted over them.

    Per field f and clause c: idf = ln(1 + (N_f - df + 0.5) / (df + 0.5)) and
    score += idf * tf / (tf + k1 * (1 - b + b * dl / avgdl_f)); Lucene's BM25 without its
    constant (k1 + 1) factor, which no ranking sees."""
    df = [[0] * clauses for _ in fields]
    for row in rows:
        for f, counts in enumerate(row.frequencies):
            if any(counts):
                for c, tf in enumerate(counts):
                    if tf > 0:
                        df[f][c] += 1
    idf = [
        [math.log(1.0 + (s.documents - n + 0.5) / (n + 0.5)) for n in df[f]]
        for f, s in enumerate(fields)
    ]
    average = [s.tokens / s.documents if s.documents else 0.0 for s in fields]
    scored: list[tuple[str, str, float]] = []
    for row in rows:
        score = 0.0
        for f, counts in enumerate(row.frequencies):
            if not any(counts):
                continue
            norm = k1 * (1.0 - b + b * row.lengths[f] / average[f]) if average[f] else k1
            for c, tf in enumerate(counts):
                if tf > 0:
                    score += idf[f][c] * tf / (tf + norm)
        if score > 0.0:
            scored.append((row.paragraph_id, row.document_id, score))
    scored.sort(key=lambda item: (-item[2], item[0]))
    return scored


def exact_fulltext(
    graph: Graph, scope: str, lucene: str, clauses: Sequence[Clause], limit: int
) -> list[tuple[str, str, float]]:
    """The full-text channel of one scope scored with that scope's statistics alone: the best
    `limit` (paragraph id, document id, BM25) of `lucene` (the shared index's query: the scope
    required, then the clauses). Reads every matching paragraph of the scope, so its cost grows
    with the scope: retrieval uses it for small scopes (and for a large one whose own index is
    not ONLINE yet)."""
    if not clauses:
        return []
    patterns = [field_text(c) for c in clauses]
    head = graph.read(
        "retrieval/fulltext_paragraphs_exact", scope=scope, lucene=lucene, patterns=patterns
    )[0]
    if not head["candidates"]:
        return []
    text_stats = [int(head["textParagraphs"]), int(head["textTokens"])]
    heading_stats = [int(head["headingParagraphs"]), int(head["headingTokens"])]
    if int(head["unanalysed"]):
        # Written before the statistics were stored: tokenised here until `kgs ingest` rewrites
        # their documents.
        for old in graph.read("retrieval/unanalysed_paragraphs", scope=scope):
            for stats, value in ((text_stats, old["text"]), (heading_stats, old["headingText"])):
                count = len(analyze(value or ""))
                stats[0] += 1 if count else 0
                stats[1] += count
    candidates = [_row(c, patterns) for c in head["candidates"]]
    fields = (FieldStats(*text_stats), FieldStats(*heading_stats))
    return bm25_scores(candidates, fields, len(clauses))[:limit]


def _row(candidate: Sequence[Any], patterns: Sequence[str]) -> LexicalRow:
    """One candidate as the exact statement returns it: [paragraph id, document id, text and
    heading occurrences per clause, text and heading lengths, then text and heading text only
    when the paragraph has no stored tokens (they are counted here, the same way)."""
    paragraph, document, text_counts, heading_counts, text_length, heading_length = candidate[:6]
    if text_length is not None:
        return LexicalRow(
            paragraph, document, (tuple(text_counts), tuple(heading_counts)),
            (int(text_length), int(heading_length)),
        )  # fmt: skip
    fields = [analyze(candidate[6] or ""), analyze(candidate[7] or "")]
    stored = [field_text(tokens) for tokens in fields]
    return LexicalRow(
        paragraph, document, tuple(tuple(text.count(p) for p in patterns) for text in stored),
        tuple(len(tokens) for tokens in fields),
    )  # fmt: skip
