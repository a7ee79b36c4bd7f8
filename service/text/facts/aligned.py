"""Aligned facts: value token runs of open prose with the words around them, compared by frame."""

from __future__ import annotations

import re
from collections.abc import Sequence

from service.text.facts.attributes import _MONTH_NUMBER
from service.text.facts.model import FactSettings, ParagraphTokens, Passage
from service.text.text_cache import paragraph_cache
from service.text.tokens import split_words

__all__ = ["is_anchor_token", "month_words", "norm_token"]

# --- aligned facts ---------------------------------------------------------------------------

_TOKEN = re.compile(r"[$€£]?\d[\d,.]*\d%?|[$€£]?\d%?|[^\W\d_][\w'’\-]*")
_CITATION_MARK = re.compile(r"\[\s*(?:\d+|[a-z]|edit|citation needed)\s*\]", re.IGNORECASE)
_MONTH_WORDS = frozenset(_MONTH_NUMBER)
# Capitalised words that start sentences or clauses without naming anything.
_STOP_CAPITALS = frozenset(
    split_words(
        "the a an in on at it he she they we i you his her its their our this that these those "
        "of and or but for as by with from to is was were are be there here when where which "
        "who what after before during while also however although since until if then thus so "
        "according"
    )
)


def _is_number(token: str) -> bool:
    return token.lstrip("$€£")[:1].isdigit()


def _is_value_token(token: str) -> bool:
    if _is_number(token):
        return True
    lower = token.lower()
    return lower in _MONTH_WORDS or (token[:1].isupper() and lower not in _STOP_CAPITALS)


# Tokens recur across paragraphs and documents (the scan compares one document's words with
# another's): normalise each distinct one once.
@paragraph_cache("function")
def norm_token(token: str) -> str:
    """Case, thousands separators, currency and percent signs and a trailing apostrophe are
    layout, not content: "13.6%" and "13.6 %" state one figure, "Brooks'" and "Brooks" one
    name."""
    if _is_number(token):
        return token.lower().replace(",", "").rstrip("%").lstrip("$€£")
    return token.lower().rstrip("'’")


def month_words() -> frozenset[str]:
    """Month names and their abbreviations, lower-case."""
    return _MONTH_WORDS


def is_anchor_token(token: str) -> bool:
    """A figure or a name (not a month word): what ties a statement to one entity."""
    return _is_value_token(token) and token.lower() not in _MONTH_WORDS


_SENTENCE_GAP = re.compile(r"[.!?;]")


def _ends_sentence(token: str, gap: str) -> bool:
    """The text between two tokens closes a sentence ("Stoke. Groves"), not an initial or a
    short abbreviation ("David S. Ware", "Dr. Dre"): a value run stops there."""
    return _SENTENCE_GAP.search(gap) is not None and len(token) > 2 and not token.isupper()


def _aligned_facts(
    passage: Passage, sentences: Sequence[tuple[int, int]], settings: FactSettings
) -> list[tuple[int, int, int, int, int, str, ParagraphTokens]]:
    """Value runs of a paragraph with their token frames: (sentence index, token start,
    token end, char start, char end, frame key, tokens). Citation marks ([1], [edit]) are
    ignored, so an edited copy with different reference markup still aligns."""
    text = passage.text
    masked = _mask_citations(text)
    matches = list(_TOKEN.finditer(masked))
    raw = tuple(m.group() for m in matches)
    tokens = tuple(norm_token(t) for t in raw)
    paragraph = ParagraphTokens(tokens, text, [i for m in matches for i in m.span()])
    k = settings.aligned_context_tokens
    found: list[tuple[int, int, int, int, int, str, ParagraphTokens]] = []
    index = 0
    while index < len(raw):
        if not _is_value_token(raw[index]):
            index += 1
            continue
        end = index + 1
        limit = min(len(raw), index + settings.max_value_tokens)
        while (
            end < limit
            and _is_value_token(raw[end])
            and not _ends_sentence(
                raw[end - 1], masked[matches[end - 1].end() : matches[end].start()]
            )
        ):
            end += 1
        if index >= k and end + k <= len(raw):
            char_start, char_end = matches[index].start(), matches[end - 1].end()
            sentence = next(
                (i for i, (lo, hi) in enumerate(sentences) if lo <= char_start < hi), None
            )
            if sentence is not None:
                before, after = tokens[index - k : index], tokens[end : end + k]
                frame = " ".join(before) + " _ " + " ".join(after)
                found.append((sentence, index, end, char_start, char_end, frame, paragraph))
        index = end
    return found


_SKIPPED_KINDS = frozenset({"code", "mermaid", "heading"})
# Table rows repeat one frame with a different figure per row by design: not statements.
_NOT_ALIGNED_KINDS = frozenset({"table"})


def _mask_citations(text: str) -> str:
    """Citation marks ([12], [edit]) blanked out, offsets kept."""
    return _CITATION_MARK.sub(lambda m: " " * len(m.group()), text)
