"""How many paragraphs' derived text each process keeps: sentence splits (spans.py), extracted
facts, word tokens and names/figures (facts.py). All are pure functions of a paragraph's text,
and the same documents are read question after question (the conflict scan reads every
paragraph of every selected document), so a paragraph met again costs a lookup, not a parse.

`KGS_TEXT_CACHE_PARAGRAPHS` (default 8192) applies to each of those caches;
`KGS_ANALYSIS_CACHE_PARAGRAPHS` (default 8192) to the decoded analyses stored at ingest
(analysis.py), with which a paragraph missing from the other caches costs a decode, not a parse.
Measured at 100k paragraphs before analyses were stored: about 5.6 KiB per paragraph for the
text caches together. Read once, at import: the caches are sized when their functions are
defined.
"""

from __future__ import annotations

import os

from service.settings import env_int

__all__ = ["ANALYSIS_CACHE_PARAGRAPHS", "TEXT_CACHE_PARAGRAPHS"]


def _paragraphs(env: str, default: int) -> int:
    return env_int(os.environ, env, default)  # positive, named in the error


TEXT_CACHE_PARAGRAPHS = _paragraphs("KGS_TEXT_CACHE_PARAGRAPHS", 8192)
# Decoded stored analyses (analysis.py), kept compact: under 1.8 KiB per paragraph of the 100k
# bench corpus. A decode takes about 5 microseconds (35 before words and offsets were packed,
# when a cache of 2048 made the evidence path's p50 about 3 ms slower than 8192).
ANALYSIS_CACHE_PARAGRAPHS = _paragraphs("KGS_ANALYSIS_CACHE_PARAGRAPHS", 8192)
