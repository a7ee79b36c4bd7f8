"""How many paragraphs' derived text each process keeps: sentence splits (spans.py), extracted
facts, word tokens and names/figures (facts.py). All are pure functions of a paragraph's text,
and the same documents are read question after question (the conflict scan reads every
paragraph of every selected document), so a paragraph met again costs a lookup, not a parse.

`KGS_TEXT_CACHE_PARAGRAPHS` (default 8192) applies to each of those caches, and to the decoded
analyses stored at ingest (analysis.py): with those, a paragraph missing from the caches costs a
decode, not a parse. Measured at 100k paragraphs before analyses were stored: about 5.6 KiB per
paragraph for all caches together. Read once, at import: the caches are sized when their
functions are defined.
"""

from __future__ import annotations

import os

from service.settings import SettingsError

__all__ = ["TEXT_CACHE_PARAGRAPHS"]

_ENV = "KGS_TEXT_CACHE_PARAGRAPHS"
_DEFAULT = 8192


def _paragraphs() -> int:
    raw = os.environ.get(_ENV, "")
    if not raw:
        return _DEFAULT
    try:
        value = int(raw)
    except ValueError:
        raise SettingsError(f"{_ENV} must be an integer, got {raw!r}") from None
    if value < 1:
        raise SettingsError(f"{_ENV} must be positive, got {value}")
    return value


TEXT_CACHE_PARAGRAPHS = _paragraphs()
