"""Every word tokenizer of kgs, in one place, each named for what it keeps.

- `analyze`: Lucene's standard analyzer, closely; the full-text channel's tokens, stored on each
  paragraph at ingest and applied to the question (service/pipeline/lexical.py).
- `words`: lower-case `\\w+` runs; the answer stages' term overlap.
- `latin_words`: lower-case ASCII letter and digit runs; word stems for sufficiency.
- `split_words`: whitespace-separated words as written; fact subjects and frames.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable

__all__ = [
    "MAX_TOKEN_CHARS", "analyze", "field_text", "latin_words", "spaced_words", "split_words",
    "words",
]  # fmt: skip

MAX_TOKEN_CHARS = 255  # Lucene's StandardTokenizer splits longer tokens at this length


def _marks() -> str:
    """Combining marks of the Basic Multilingual Plane as a character-class body: Unicode word
    segmentation keeps them inside the word (Python's \\w does not match them)."""
    ranges: list[str] = []
    start = -1
    for code in range(0x10000 + 1):
        mark = code < 0x10000 and unicodedata.category(chr(code)) in ("Mn", "Mc", "Me")
        if mark and start < 0:
            start = code
        elif not mark and start >= 0:
            ranges.append(f"\\u{start:04x}-\\u{code - 1:04x}")
            start = -1
    return "".join(ranges)


# Han ideographs and Hiragana: each character is a token of its own (as in Lucene).
_IDEOGRAPHIC = (
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3041-\u3096\u309d-\u309f\U00020000-\U0003134f"
)
# Katakana: runs are one token.
_KATAKANA = "\u30a1-\u30fa\u30fc-\u30ff\u31f0-\u31ff\uff66-\uff9f"
_CJK = _IDEOGRAPHIC + _KATAKANA
# Inside a word: between letters (MidLetter, MidNumLet, apostrophe) and between digits (MidNum,
# MidNumLet, apostrophe), as Unicode word segmentation (UAX #29, rules WB6-7 and WB11-12).
_MID_NUM_LET = ".\u2018\u2019\u2024\ufe52\uff07\uff0e'"
_MID_LETTER = ":\u00b7\u0387\u05f4\u2027\ufe13\ufe55\uff1a" + _MID_NUM_LET
_MID_NUM = ",;\u037e\u0589\u060c\u060d\u066c\u07f8\u2044\ufe10\ufe14\ufe50\ufe54\uff0c\uff1b"
_MID_NUM += _MID_NUM_LET
# Java lower-cases one code point at a time (Character.toLowerCase); Python's str.lower() maps
# these two differently (dotted I to two code points, a final sigma to a final-form sigma).
_SIMPLE_LOWER = str.maketrans({"\u0130": "i", "\u03a3": "\u03c3"})


@functools.cache
def _token_pattern() -> re.Pattern[str]:
    """Compiled on first use (listing the marks takes some milliseconds): words first, the
    common case; a word is runs of word characters (letters, digits, connector punctuation, not
    CJK) and marks, joined by the inner punctuation above."""
    marks = _marks()
    run = f"[^\\W{_CJK}](?:[^\\W{_CJK}]+|[{marks}]+)*"
    letter = f"(?:[^\\W\\d_{_CJK}]|[{marks}])"
    word = (
        f"{run}(?:(?<={letter})[{re.escape(_MID_LETTER)}](?={letter}){run}"
        f"|(?<=\\d)[{re.escape(_MID_NUM)}](?=\\d){run})*"
    )
    return re.compile(f"{word}|[{_IDEOGRAPHIC}][{marks}]*|[{_KATAKANA}]+")


def analyze(text: str) -> list[str]:
    """Lower-case word tokens of `text`, after Lucene's standard analyzer: Unicode word
    segmentation (inner apostrophes, periods and colons between letters and periods and commas
    between digits stay inside a token; hyphens, slashes and other punctuation split), each Han
    or Hiragana character its own token, no stop words, tokens over 255 characters split."""
    tokens: list[str] = []
    for token in _token_pattern().findall(text.translate(_SIMPLE_LOWER).lower()):
        if len(token) <= MAX_TOKEN_CHARS:
            if token.strip("_"):  # connector punctuation alone is no word
                tokens.append(token)
        else:
            tokens.extend(
                token[i : i + MAX_TOKEN_CHARS] for i in range(0, len(token), MAX_TOKEN_CHARS)
            )
    return tokens


def field_text(tokens: Iterable[str]) -> str:
    """Tokens as stored on a paragraph: each wrapped in spaces (' a  b '), so that a clause's
    occurrences are the non-overlapping matches of its own wrapped text (tokens hold no space)."""
    return "".join(f" {t} " for t in tokens)


_WORD = re.compile(r"\w+")
_LATIN_WORD = re.compile(r"[a-z0-9]+")


def words(text: str) -> list[str]:
    """Lower-case runs of word characters (letters, digits, underscore), in order."""
    return _WORD.findall(text.lower())


def latin_words(text: str) -> list[str]:
    """Lower-case runs of ASCII letters and digits, in order."""
    return _LATIN_WORD.findall(text.lower())


def spaced_words(text: str) -> set[str]:
    """Lower-case whitespace-separated words without their punctuation: a Devanagari word
    keeps its vowel signs, which `\\w` does not match ("तुलसी" is one word, not "त", "ल", "स")."""
    return {w.strip(_PUNCTUATION) for w in text.lower().split()}


_PUNCTUATION = "\"'()[]{}<>.,;:!?…।॥،؛؟۔、，。！？；：「」『』-—–*_`"


def split_words(text: str) -> tuple[str, ...]:
    """Whitespace-separated words as written."""
    return tuple(text.split())
