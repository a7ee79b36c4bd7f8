"""The question's terms in the scope's own words: typing slips corrected, other forms found.

A user who types "decsale" or "brurs" means a word the pages hold ("descale", "burrs"), and one
who asks how to "balance" the rotor means the section on "Balancing a load". kgs's full-text
channels match whole tokens: a misspelt term finds nothing, and a term in another form of its
word misses the paragraphs that use that form. Before retrieval, one read asks the full-text
index (a large scope's own, else the shared one) for paragraphs of the scope with words near
the question's terms (a fuzzy clause, `term~1`) or sharing their stem (a prefix clause on the
Snowball English stem), and:

- a term the scope does not hold becomes the scope word it is a typing slip of. Only the two
  slips people make most are taken: two neighbouring letters swapped ("decsale" -> "descale")
  and one letter dropped inside the word ("gest" -> "guest"; not at its end: "control" and
  "controls" are two forms of one word). A substituted letter is not: it turns real words into
  other real words ("lid" and "lit", "cold" and "bold"). Nor is a common English word ever a
  slip ("planes" where the pages say "planets": service/text/vocabulary.py). A slip is replaced
  everywhere the plan carries it (the question's text and its key terms); a term the scope
  holds is never touched.
- a term the scope does not hold as asked gains the scope's words with its stem ("balancing"
  for "balance"): they join the full-text query as optional clauses (`QueryPlan.forms`); the
  key terms, which coverage checks read, stay as asked. A term the scope holds gains none:
  each form is a clause of its own, which would weigh the word twice.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

import msgspec
from neo4j.exceptions import ClientError

from service.pipeline.channels import scope_size, searches_own_fulltext
from service.pipeline.lucene import near_words_clauses, near_words_query
from service.pipeline.plan import QueryPlan
from service.scope import scope_fulltext_index
from service.text.stems import stem
from service.text.vocabulary import english_words

if TYPE_CHECKING:
    from service.db.graph import Graph
    from service.settings import PipelineSettings

__all__ = ["ScopeWords", "is_slip", "plan_in_scope_words", "scope_words"]


class ScopeWords(msgspec.Struct, frozen=True):
    slips: tuple[tuple[str, str], ...]  # (typed, scope word)
    forms: tuple[str, ...]  # the scope's other forms of the terms' words


def plan_in_scope_words(graph: Graph, plan: QueryPlan, settings: PipelineSettings) -> QueryPlan:
    """The plan with its slips corrected in the question text and the key terms, so every later
    stage (retrieval, the question's embedding, answerability, procedures) reads the word the
    user meant, and with the scope's other forms of its terms; the plan itself when neither."""
    own = searches_own_fulltext(scope_size(graph, plan.scope, settings), settings)
    words = scope_words(graph, plan.scope, plan.terms, min_chars=settings.scope_words_min_chars,
                        paragraphs=settings.scope_words_paragraphs,
                        own_index=scope_fulltext_index(plan.scope) if own else None)  # fmt: skip
    if not words.slips and not words.forms:
        return plan
    query, terms = plan.query, list(plan.terms)
    for typed, word in words.slips:
        query = re.sub(rf"\b{re.escape(typed)}\b", word, query, flags=re.IGNORECASE)
        terms = [word if t.lower() == typed else t for t in terms]
    return msgspec.structs.replace(
        plan, query=query, terms=tuple(dict.fromkeys(terms)), spelling=words.slips,
        forms=words.forms,
        reasons=(*plan.reasons, *(f"spelling: {t} -> {w}" for t, w in words.slips)),
    )  # fmt: skip


def _real_word(term: str) -> bool:
    """A word of the vocabulary, or its plural: the vocabulary holds "vet" and not "vets", and
    "vets" is no slip of "vents"."""
    vocabulary = english_words()
    return term in vocabulary or any(
        term.endswith(ending) and term[: -len(ending)] in vocabulary for ending in ("s", "es")
    )


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


def scope_words(
    graph: Graph,
    scope: str,
    terms: Sequence[str],
    *,
    min_chars: int,
    paragraphs: int,
    own_index: str | None = None,
) -> ScopeWords:
    """Among the words of the `paragraphs` best matches of the terms' fuzzy and stem clauses:
    for each term the scope does not hold, the most frequent word it is a slip of; and every
    word sharing a term's stem (the term's own form aside). `own_index`: the scope's own
    full-text index, when it is ONLINE (else, or when it went away, the shared one)."""
    asked = [t for t in dict.fromkeys(t.lower() for t in terms)
             if len(t) >= min_chars and t.isascii() and t.isalpha()]  # fmt: skip
    if not asked or paragraphs <= 0:
        return ScopeWords(slips=(), forms=())
    stems = {t: stem(t) for t in asked}
    rows = None
    if own_index is not None:
        try:
            rows = graph.read("retrieval/scope_words_scope_index", indexName=own_index,
                              scope=scope, limit=paragraphs,
                              lucene=near_words_clauses(asked, list(stems.values())))  # fmt: skip
        except ClientError:  # dropped (the scope shrank) since its state was cached
            rows = None
    if rows is None:
        rows = graph.read("retrieval/scope_words", scope=scope, limit=paragraphs,
                          lucene=near_words_query(scope, asked, list(stems.values())))  # fmt: skip
    words: Counter[str] = Counter(w for row in rows for w in str(row["tokens"]).split())
    slips = []
    for term in asked:
        if term in words or _real_word(term):  # held, or a real word: not a slip
            continue
        near = [w for w in words if is_slip(term, w)]
        if near:
            slips.append((term, max(near, key=lambda w: (words[w], w))))
    # Only a word the scope does not hold as asked gains its other forms: another clause for a
    # word the pages do hold would only weigh it twice.
    missing = {stems[t] for t in asked if t not in words} | {stem(w) for _, w in slips}
    known = set(asked) | {w for _, w in slips}
    forms = sorted(w for w in words if w not in known and w.isalpha() and stem(w) in missing)
    return ScopeWords(slips=tuple(slips), forms=tuple(forms))
