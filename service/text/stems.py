"""The English stem of a word: the key under which its forms meet ("balance", "balancing",
"balanced"), for the typo read, the review's coverage and the answer types."""

from __future__ import annotations

import threading

import snowballstemmer

from service.text.text_cache import paragraph_cache

__all__ = ["stem"]

# A Snowball stemmer keeps the word it works on in the object: one per thread, since the
# answer pool's threads stem at the same time (a shared one raised IndexError under load).
_STEMMERS = threading.local()


@paragraph_cache("function")
def stem(word: str) -> str:
    """Cached: every distinct word of the paragraphs read is stemmed (thousands a question in a
    large scope), and pure-Python Snowball stemming took most of the typo read's time."""
    stemmer = getattr(_STEMMERS, "english", None)
    if stemmer is None:
        stemmer = _STEMMERS.english = snowballstemmer.stemmer("english")
    return str(stemmer.stemWord(word.lower()))
