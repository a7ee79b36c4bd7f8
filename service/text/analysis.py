"""A paragraph's text analysis, computed once at ingest and stored with the paragraph.

The conflict scan reads every paragraph of every selected document, question after question,
and needs the same pure results of each: its comparable facts, its word tokens and its names and
figures. Computing them costs about 0.3 ms per paragraph; a question over large documents meets
hundreds of paragraphs, more than any per-process cache keeps at 100k paragraphs. So ingest
writes them as `Paragraph.analysis` (msgpack bytes) and the scan decodes them instead.

What is stored is local to the paragraph text (offsets into it, normalised words); the
document, path and line of each fact are bound when the paragraph is read. An analysis counts
only when its version equals `ANALYSIS_VERSION`, a digest of the code that produces it (facts.py
and the sentence splitter in spans.py) and of the stored layout (the schema of TextAnalysis): a
changed extractor never reads stale facts, it computes them from the text until the documents
are ingested again (the version is part of each document's unit hash, so `kgs ingest` rewrites
them).
"""

from __future__ import annotations

import functools
import hashlib
import sys
from array import array
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

import msgspec

__all__ = [
    "ANALYSIS_VERSION",
    "DecodedAnalysis",
    "FactKind",
    "Scope",
    "StoredFact",
    "TextAnalysis",
    "decode_analysis",
    "encode_analysis",
    "forget_decoded",
    "pack_offsets",
]

# The fact vocabulary (facts.py re-exports it); stored facts are decoded against it.
FactKind = Literal[
    "measurement",
    "date",
    "state",
    "location",
    "quantity",
    "owner",
    "endpoint",
    "dependency",
    "format",
    "protocol",
    "version",
    "port",
    "status_code",
    "aligned",
]

# (dimension, value) pairs, sorted; empty = the default (current, unconditioned) scope.
Scope = tuple[tuple[str, str], ...]

_PRODUCERS = ("facts/*.py", "spans.py", "tokens.py")


class StoredFact(msgspec.Struct, frozen=True, array_like=True):
    """A fact without its document: offsets are inside the paragraph text."""

    kind: FactKind
    subject: str
    key: str
    norm: str
    scope: Scope
    sentence_start: int
    sentence_end: int
    value_start: int
    value_end: int
    token_start: int  # aligned facts: the value's range among the paragraph's tokens
    token_end: int


class TextAnalysis(msgspec.Struct, frozen=True, array_like=True):
    """Words and offsets are packed (one string, one byte run) rather than one msgpack item per
    token: a paragraph's ~50 tokens decoded and interned one by one took 31 of the 35
    microseconds of its decode, and the scan decodes every paragraph of the documents it reads."""

    version: str
    words: str  # every token normalised (facts.norm_token), citation marks left out, joined by
    # single spaces (a token never holds whitespace)
    offsets: bytes  # (start, end) of each token, flattened, as little-endian uint32 (pack_offsets)
    anchors: tuple[str, ...]  # distinct normalised names and figures
    facts: tuple[StoredFact, ...]  # under the default FactSettings


def _version() -> str:
    digest = hashlib.sha256(msgspec.json.encode(msgspec.json.schema(TextAnalysis)))
    here = Path(__file__).parent
    for pattern in _PRODUCERS:
        for path in sorted(here.glob(pattern)):
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


ANALYSIS_VERSION = _version()

_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder(TextAnalysis)


def encode_analysis(analysis: TextAnalysis) -> bytes:
    """Refuses words and offsets that disagree (a token that was empty or held a space would
    shift every word after it against its offsets)."""
    words = analysis.words.split(" ") if analysis.words else []
    if len(words) * 8 != len(analysis.offsets) or "" in words:
        raise ValueError(f"{len(words)} words against {len(analysis.offsets) // 8} offset pairs")
    return _encoder.encode(analysis)


class DecodedAnalysis(msgspec.Struct, frozen=True, kw_only=True):
    """A stored analysis as the scan reads it: the words as their one string (split when asked
    for, some microseconds: not kept, as keeping them cost more), offsets as an integer array."""

    words: str
    offsets: array[int]
    anchors: tuple[str, ...]
    facts: tuple[StoredFact, ...]

    @property
    def norms(self) -> tuple[str, ...]:
        return tuple(self.words.split(" ")) if self.words else ()


def forget_decoded() -> None:
    """Empty the recent decodes (benchmarks that meet every text cold)."""
    decode_analysis.cache_clear()


def pack_offsets(offsets: Iterable[int]) -> bytes:
    packed = array("I", offsets)  # 4 bytes an item on every platform CPython supports
    if sys.byteorder == "big":
        packed.byteswap()
    return packed.tobytes()


def _unpack_offsets(data: bytes) -> array[int]:
    packed = array("I")
    packed.frombytes(data)
    if sys.byteorder == "big":
        packed.byteswap()
    return packed


# A scan asks for a bound paragraph's analysis twice or more (its facts, then its tokens): the
# last 64 decodes are kept, more paragraphs than a scan binds. Not more: a decode takes about 5
# microseconds, and a stream of new questions over a large scope meets mostly paragraphs not
# decoded before (33,362 distinct analyses in 42,000 paragraph reads over the latency bench's
# 200 questions at 100k). Sizing and storing every miss in a byte-bounded shared cache cost
# more than the decodes saved (bench/conflict_scan.py). A decoded analysis holds some 2.2 KiB
# on average (its facts, tokens and names).
_RECENT_DECODES = 64


@functools.lru_cache(maxsize=_RECENT_DECODES)
def decode_analysis(data: bytes) -> DecodedAnalysis | None:
    """The stored analysis, or None when there is none, it is unreadable or of another
    version (the caller then computes from the text)."""
    if not data:
        return None
    try:
        stored = _decoder.decode(data)
    except msgspec.DecodeError:
        return None
    if stored.version != ANALYSIS_VERSION or len(stored.offsets) % 8:
        return None
    return DecodedAnalysis(
        words=stored.words, offsets=_unpack_offsets(stored.offsets),
        anchors=tuple(map(sys.intern, stored.anchors)), facts=stored.facts,
    )  # fmt: skip
