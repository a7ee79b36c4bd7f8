"""Lucene query text for the full-text indexes: the scope's required clause, then the question's
terms and phrases as optional clauses, every one escaped (user text never reaches the parser as
syntax)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from service.scope import scope_key

__all__ = ["lucene_clauses", "lucene_query", "near_words_clauses", "near_words_query"]

_LUCENE_SPECIAL = re.compile(r'([+\-!(){}\[\]^"~*?:\\/]|&&|\|\|)')


# Bare AND / OR / NOT are operators to Lucene's parser ("AND OR" fails to parse); the analyzer
# lower-cases every term anyway, so the lower-case word matches the same paragraphs.
_LUCENE_OPERATOR = re.compile(r"\b(AND|OR|NOT)\b")


def lucene_query(scope: str, terms: Sequence[str], phrases: Sequence[str]) -> str:
    """The scope is required; terms and phrases are optional clauses, all escaped."""
    return f"+scopeKey:{scope_key(scope)} +({lucene_clauses(terms, phrases) or '*:*'})"


_EXACT_BOOST = 4


def near_words_query(scope: str, terms: Sequence[str], stems: Sequence[str]) -> str:
    """near_words_clauses with the scope required: the query of the shared index."""
    return f"+scopeKey:{scope_key(scope)} +({near_words_clauses(terms, stems)})"


def near_words_clauses(terms: Sequence[str], stems: Sequence[str]) -> str:
    """Each term as itself (boosted, so paragraphs holding it come first and show that the
    scope holds it), as a fuzzy clause (words one edit away match it), and each stem as a
    prefix clause (the word's other forms match it); alone, the query of a scope's own index."""
    clauses = [f"{_escape(t)}^{_EXACT_BOOST} {_escape(t)}~1" for t in terms]
    clauses += [f"{_escape(s)}*" for s in stems]
    return " ".join(dict.fromkeys(clauses))


def lucene_clauses(terms: Sequence[str], phrases: Sequence[str]) -> str:
    """Terms and phrases as optional Lucene clauses, all escaped ('' when there are none); the
    query of a scope's own full-text index, which holds no other scope."""
    clauses = [_escape(t) for t in terms if t.strip()]
    clauses += [
        f'"{_escape(p)}"' for p in phrases if p.strip() and (" " in p.strip() or not p.isascii())
    ]
    return " ".join(dict.fromkeys(clauses))


def _escape(text: str) -> str:
    escaped = _LUCENE_SPECIAL.sub(r"\\\1", text.strip())
    return _LUCENE_OPERATOR.sub(lambda match: match.group(1).lower(), escaped)
