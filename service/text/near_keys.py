"""Near-duplicate keys of a paragraph: MinHash over word shingles, banded (locality-sensitive
hashing), so near-duplicate paragraphs of a scope are found by grouping on a stored key instead
of comparing every pair (100k paragraphs are 5e9 pairs; their keys are 800k rows to group).

Ingest stores `near_keys(text)` as `Paragraph.nearKeys`; the health report groups a scope's
paragraphs by key and confirms each candidate pair with `jaccard(shingles(a), shingles(b))`.
Keys must be equal across processes and releases of Python, so every hash is BLAKE2b (never the
salted built-in `hash()`), and each key carries `KEY_VERSION`: keys made with other constants
never match, and a change of the constants below must change the version.
"""

from __future__ import annotations

import functools
import hashlib
import unicodedata

from service.text.tokens import analyze

__all__ = [
    "BANDS",
    "KEY_VERSION",
    "MIN_WORDS",
    "PERMUTATIONS",
    "ROWS_PER_BAND",
    "SHINGLE_WORDS",
    "jaccard",
    "near_keys",
    "shingles",
]

KEY_VERSION = "n1"  # part of every key; change it with any constant below
SHINGLE_WORDS = 3  # words per shingle: a one-word edit changes at most 3 shingles
# Below this a paragraph gets no keys: a short one (a list item, a caption) repeats across
# documents by design, and one word changes a large share of its few shingles.
MIN_WORDS = 20
# Two paragraphs whose shingle sets have Jaccard similarity s share at least one band key with
# probability 1 - (1 - s^ROWS_PER_BAND)^BANDS: 0.96 at s = 0.8 (the similarity the report
# targets), 0.99 at 0.85, 0.22 at 0.5, 0.02 at 0.3. The curve is steepest near
# (1/BANDS)^(1/ROWS_PER_BAND) = 0.66, below the target, so few true pairs are missed; the exact
# check drops the extra candidates.
BANDS = 8
ROWS_PER_BAND = 5
PERMUTATIONS = BANDS * ROWS_PER_BAND

_PRIME = (1 << 61) - 1  # Mersenne prime: the field of the universal hashes (a*x + b) mod p
_SEED = b"kgs near keys"


@functools.cache
def _coefficients() -> tuple[tuple[int, int], ...]:
    """(a, b) of each permutation, derived from fixed seeds: the same in every process."""
    pairs: list[tuple[int, int]] = []
    for index in range(PERMUTATIONS):
        digest = hashlib.blake2b(f"{index}".encode(), digest_size=16, key=_SEED).digest()
        a = int.from_bytes(digest[:8], "big") % (_PRIME - 1) + 1  # a != 0
        b = int.from_bytes(digest[8:], "big") % _PRIME
        pairs.append((a, b))
    return tuple(pairs)


def _words(text: str) -> list[str]:
    """The normalised words: compatibility forms folded (NFKC: full-width letters, ligatures),
    then the full-text analyzer's lower-case tokens (each Han character a word of its own, so
    Chinese and Japanese paragraphs get shingles too)."""
    return analyze(unicodedata.normalize("NFKC", text))


def shingles(text: str) -> frozenset[str]:
    """The set of SHINGLE_WORDS-word runs of the normalised text (the whole text if shorter)."""
    return _shingles(_words(text))


def _shingles(words: list[str]) -> frozenset[str]:
    if len(words) <= SHINGLE_WORDS:
        return frozenset([" ".join(words)]) if words else frozenset()
    return frozenset(
        " ".join(words[i : i + SHINGLE_WORDS]) for i in range(len(words) - SHINGLE_WORDS + 1)
    )


def jaccard(first: frozenset[str], second: frozenset[str]) -> float:
    """|A ∩ B| / |A ∪ B|; 0.0 for two empty sets (nothing to compare is no duplicate)."""
    union = len(first | second)
    return len(first & second) / union if union else 0.0


def near_keys(text: str) -> list[str]:
    """BANDS keys `<version>.<band>.<16 hex>`, one per band of the text's MinHash signature;
    [] for a text of fewer than MIN_WORDS words."""
    words = _words(text)
    if len(words) < MIN_WORDS:
        return []
    hashes = [
        int.from_bytes(hashlib.blake2b(s.encode(), digest_size=8).digest(), "big") % _PRIME
        for s in _shingles(words)
    ]
    signature = [min((a * h + b) % _PRIME for h in hashes) for a, b in _coefficients()]
    keys: list[str] = []
    for band in range(BANDS):
        rows = signature[band * ROWS_PER_BAND : (band + 1) * ROWS_PER_BAND]
        digest = hashlib.blake2b(
            b"".join(r.to_bytes(8, "big") for r in rows), digest_size=8, person=bytes([band])
        ).hexdigest()
        keys.append(f"{KEY_VERSION}.{band}.{digest}")
    return keys
