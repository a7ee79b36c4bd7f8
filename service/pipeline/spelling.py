"""Typing slips in a question's terms, corrected against the scope's own words.

A user who types "decsale" or "brurs" means a word the pages hold ("descale", "burrs"); neither
full-text channel finds a misspelt term, and the question loses its most specific word. Before
retrieval, one read asks the shared full-text index for paragraphs of the scope with words near
the question's terms (Lucene's fuzzy clause, `term~1`), and a term the scope does not hold gains
the scope word it is a slip of. Only the two slips people make most are taken: two neighbouring
letters swapped ("decsale" -> "descale") and one letter dropped inside the word ("gest" ->
"guest"; not at its end: "control" and "controls" are two forms of one word). A substituted letter is not: it turns real words into other real words ("lid"
and "lit", "cold" and "bold"), so a correction would change what was asked. The original term
is replaced everywhere the plan carries it (the question's text and its key terms); a term the
scope holds is never touched.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

import msgspec

from service.pipeline.lucene import fuzzy_query
from service.pipeline.plan import QueryPlan

if TYPE_CHECKING:
    from service.db.graph import Graph
    from service.settings import PipelineSettings

__all__ = ["corrected_plan", "corrections", "is_slip"]


def corrected_plan(graph: Graph, plan: QueryPlan, settings: PipelineSettings) -> QueryPlan:
    """The plan with its slips corrected in the question text and the key terms, so every later
    stage (retrieval, the question's embedding, answerability, procedures) reads the word the
    user meant; the plan itself when there is none."""
    slips = corrections(graph, plan.scope, plan.terms, min_chars=settings.spelling_min_chars,
                        paragraphs=settings.spelling_paragraphs)  # fmt: skip
    if not slips:
        return plan
    query, terms = plan.query, list(plan.terms)
    for typed, word in slips:
        query = re.sub(rf"\b{re.escape(typed)}\b", word, query, flags=re.IGNORECASE)
        terms = [word if t.lower() == typed else t for t in terms]
    return msgspec.structs.replace(
        plan, query=query, terms=tuple(dict.fromkeys(terms)), spelling=slips,
        reasons=(*plan.reasons, *(f"spelling: {t} -> {w}" for t, w in slips)),
    )  # fmt: skip


def is_slip(typed: str, word: str) -> bool:
    """`typed` is `word` with two neighbouring letters swapped or one letter dropped before its
    last (a last letter more is an inflection: "control" is not a slip of "controls")."""
    if len(word) == len(typed) + 1:
        return any(word[:i] + word[i + 1 :] == typed for i in range(len(word) - 1))
    if len(word) != len(typed) or word == typed:
        return False
    diff = [i for i, (a, b) in enumerate(zip(typed, word, strict=True)) if a != b]
    return (len(diff) == 2 and diff[1] == diff[0] + 1 and typed[diff[0]] == word[diff[1]]
            and typed[diff[1]] == word[diff[0]])  # fmt: skip


def corrections(
    graph: Graph, scope: str, terms: Sequence[str], *, min_chars: int, paragraphs: int
) -> tuple[tuple[str, str], ...]:
    """(typed, scope word) for each term the scope does not hold that is a slip of a word it
    holds: the most frequent such word among the `paragraphs` best fuzzy matches."""
    asked = [t for t in dict.fromkeys(t.lower() for t in terms)
             if len(t) >= min_chars and t.isascii() and t.isalpha()]  # fmt: skip
    if not asked or paragraphs <= 0:
        return ()
    rows = graph.read("retrieval/fuzzy_tokens", scope=scope,
                      lucene=fuzzy_query(scope, asked), limit=paragraphs)  # fmt: skip
    words: Counter[str] = Counter(w for row in rows for w in str(row["tokens"]).split())
    found = []
    for term in asked:
        if term in words:
            continue
        slips = [w for w in words if is_slip(term, w)]
        if slips:
            found.append((term, max(slips, key=lambda w: (words[w], w))))
    return tuple(found)
