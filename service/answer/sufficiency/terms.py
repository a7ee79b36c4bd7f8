"""Term matching of the review: stems of Latin words, compact keys of other terms."""

from __future__ import annotations

import re
from collections.abc import Sequence

from service.text.relation_labels import compact_key
from service.text.tokens import latin_words


def _stem(word: str) -> str:
    """A crude English stem ('filmed', 'filming', 'films' -> 'film'), enough to match a key
    term against the words of one sentence."""
    stem = _SUFFIX.sub("", word)
    return stem if len(stem) >= 3 else word


def stems(text: str) -> set[str]:
    return {_stem(w) for w in latin_words(text)}


def has_term(text: str, term: str, words: set[str]) -> bool:
    """A Latin word term matches a word of the text by stem; other terms (CJK, compounds)
    match by their compact form, as in _coverage."""
    if term.isascii() and term.isalnum():
        return _stem(term) in words
    key = compact_key(term)
    return bool(key) and key in compact_key(text)


def _share(terms: Sequence[str], text: str) -> float:
    """Share of `terms` found in `text` (1.0 when there are none to find)."""
    words = stems(text)
    return sum(1 for t in terms if has_term(text, t, words)) / len(terms) if terms else 1.0


_SUFFIX = re.compile(r"(?:ings?|ed|es|s|ly)$")
