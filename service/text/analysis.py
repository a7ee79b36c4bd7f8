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

import hashlib
import sys
from array import array
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

import msgspec

from service.text.text_cache import approximate_size, paragraph_cache

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
    """A stored analysis as the scan keeps it: the words as their one string (split when asked
    for, a couple of microseconds), offsets as an integer array."""

    words: str
    offsets: array[int]
    anchors: tuple[str, ...]
    facts: tuple[StoredFact, ...]

    @property
    def norms(self) -> tuple[str, ...]:
        return _split_words(self.words)


# A scan asks for a paragraph's words twice (document profiles, then the near-copy test); the
# split of the last ~five questions' paragraphs is kept, not of every cached analysis (3 KiB
# each as separate strings).
@paragraph_cache("function")
def _split_words(words: str) -> tuple[str, ...]:
    return tuple(words.split(" ")) if words else ()


def forget_decoded() -> None:
    """Empty the decoded analyses and their split words (benchmarks that meet every text cold)."""
    decode_analysis.cache_clear()
    _split_words.cache_clear()


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


def _decoded_size(decoded: DecodedAnalysis | None) -> int:
    """What a decoded analysis holds, as approximate_size counts it, without walking each fact
    field by field (that cost three times the decode): a fact is its three strings and a fixed
    part (the struct, its offsets, an empty scope), plus its scope when it has one."""
    if decoded is None:
        return sys.getsizeof(None)
    return (
        sys.getsizeof(decoded) + sys.getsizeof(decoded.words) + sys.getsizeof(decoded.offsets)
        + approximate_size(decoded.anchors) + sys.getsizeof(decoded.facts)
        + sum(_FACT_FIXED_BYTES + sys.getsizeof(f.subject) + sys.getsizeof(f.key)
              + sys.getsizeof(f.norm) + (approximate_size(f.scope) if f.scope else 0)
              for f in decoded.facts)
    )  # fmt: skip


# approximate_size of a fact less its three strings: the same for every fact without a scope
# (offsets of 0, a smaller int, would be counted 4 bytes over).
_FACT_FIXED_BYTES = approximate_size(
    StoredFact("date", "", "", "", (), 1, 1, 1, 1, 1, 1)
) - 3 * sys.getsizeof("")


# Decoded once per paragraph while it is in use: the facts, the tokens and the profile of one
# paragraph are asked for separately. Bytes hash once (CPython keeps the hash).
@paragraph_cache("analysis", size=_decoded_size)
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
