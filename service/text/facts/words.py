"""Plain word tokens and document profiles, for edits of plain words between documents
(service/pipeline/conflicts)."""

from __future__ import annotations

import bisect
import sys
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet

import msgspec

from service.text.analysis import (
    decode_analysis,
)
from service.text.facts.aligned import (
    _NOT_ALIGNED_KINDS,
    _SKIPPED_KINDS,
    _TOKEN,
    _mask_citations,
    is_anchor_token,
    norm_token,
)
from service.text.facts.model import Passage
from service.text.text_cache import paragraph_cache

__all__ = [
    "DocumentProfile",
    "DocumentProfiles",
    "DocumentWords",
    "WordToken",
    "document_profile",
    "document_profiles",
    "document_vocabularies",
    "document_words",
]

# --- word tokens (for edits of plain words, conflicts.py) ---------------------------------------


class WordToken(msgspec.Struct, frozen=True, kw_only=True):
    """One token of a passage: its normalised form, and where it sits in the passage."""

    norm: str
    raw: str  # as written
    passage: int  # index into the passages given to `document_tokens`
    index: int  # position among the passage's tokens
    start: int  # character offsets inside the passage text
    end: int


class DocumentWords(msgspec.Struct, frozen=True, kw_only=True):
    """A document's normalised tokens in reading order, and where each passage's run of them
    begins: the near-copy test reads only the words, the few edits it finds become WordTokens."""

    norms: list[str]
    starts: list[int]  # index into `norms` where each run begins
    passages: list[int]  # the passage (index into the passages given) of each run

    def token(self, passages: Sequence[Passage], index: int) -> WordToken:
        run = bisect.bisect_right(self.starts, index) - 1
        number = self.passages[run]
        passage = passages[number]
        at = index - self.starts[run]
        offsets = _passage_tokens(passage)[1]
        start, end = offsets[2 * at], offsets[2 * at + 1]
        return WordToken(norm=self.norms[index], raw=passage.text[start:end], passage=number,
                         index=at, start=start, end=end)  # fmt: skip


def document_words(
    passages: Sequence[Passage], max_tokens: int, documents: AbstractSet[str] | None = None
) -> dict[str, DocumentWords]:
    """Each document's tokens (of `documents`, if given) in reading order (citation marks left
    out), at most `max_tokens` per document; the passages that give no aligned facts (code,
    tables, headings) are skipped."""
    found: dict[str, DocumentWords] = {}
    others = frozenset() if documents is None else {p.document_id for p in passages} - documents
    for number, passage, norms in _document_runs(passages, max_tokens, skip=others):
        words = found.setdefault(passage.document_id,
                                 DocumentWords(norms=[], starts=[], passages=[]))  # fmt: skip
        if norms:
            words.starts.append(len(words.norms))
            words.passages.append(number)
            words.norms.extend(norms)
    return found


def document_vocabularies(
    passages: Sequence[Passage], max_tokens: int, profiles: DocumentProfiles | None = None
) -> dict[str, tuple[AbstractSet[str], int]]:
    """Each document's distinct words and number of tokens over exactly the tokens
    `document_words` gives it, without building its word list: enough to rule out most pairs
    of documents as near copies of each other. A document whose stored profile has no more
    than `max_tokens` tokens takes them from it instead of reading its passages."""
    found: dict[str, tuple[AbstractSet[str], int]] = {}
    for document_id, profile in (profiles.stored if profiles is not None else {}).items():
        if profile.tokens <= max_tokens:
            found[document_id] = (profile.words, profile.tokens)
    counted: dict[str, tuple[set[str], int]] = {}
    for _, passage, norms in _document_runs(passages, max_tokens, skip=found.keys()):
        words, count = counted.get(passage.document_id) or (set(), 0)
        words.update(norms)
        counted[passage.document_id] = (words, count + len(norms))
    return found | counted


def _document_runs(
    passages: Sequence[Passage], max_tokens: int, skip: AbstractSet[str] = frozenset()
) -> Iterator[tuple[int, Passage, Sequence[str]]]:
    """Each passage that can give aligned facts (its index, itself, its normalised tokens),
    the tokens cut where its document reaches `max_tokens`; the documents in `skip` left out."""
    taken: dict[str, int] = {}
    for number, passage in enumerate(passages):
        if (passage.kind in _SKIPPED_KINDS or passage.kind in _NOT_ALIGNED_KINDS
                or passage.document_id in skip):  # fmt: skip
            continue
        kept = taken.get(passage.document_id, 0)
        norms = _passage_tokens(passage)[0]
        if kept + len(norms) > max_tokens:
            norms = norms[: max_tokens - kept]
        taken[passage.document_id] = kept + len(norms)
        yield number, passage, norms


class DocumentProfile(msgspec.Struct, frozen=True, kw_only=True):
    """What a whole document mentions: its distinct names and figures (anchors, which tell
    the entity a page is about), every distinct normalised word, and how many tokens it has.
    Over the passages that can give aligned facts; ingest stores it on the Document node with
    the facts (ingest/facts.py), so a scan need not read every word of every document."""

    anchors: frozenset[str]
    words: frozenset[str]
    tokens: int = 0

    def same_entity_share(self, other: DocumentProfile) -> float:
        """Share of the smaller anchor set the other document also has: an edited copy of a
        page keeps nearly all of its names and figures, a page about another entity that
        shares a template keeps few."""
        smaller = min(len(self.anchors), len(other.anchors))
        return len(self.anchors & other.anchors) / max(1, smaller)


class DocumentProfiles(Mapping[str, DocumentProfile]):
    """Each document's profile over the passages that give facts, made when first asked for:
    a scan needs the profiles only of documents whose statements it compares, and making one
    reads every word of its document."""

    def __init__(
        self, passages: Sequence[Passage], stored: Mapping[str, DocumentProfile] | None = None
    ) -> None:
        self._passages: dict[str, list[Passage]] = {}
        for passage in passages:
            if passage.kind not in _SKIPPED_KINDS and passage.kind not in _NOT_ALIGNED_KINDS:
                self._passages.setdefault(passage.document_id, []).append(passage)
        # The stored profiles of documents that have passages here (kept for the vocabularies).
        self.stored = {d: p for d, p in (stored or {}).items() if d in self._passages}
        self._made = dict(self.stored)

    def __getitem__(self, document_id: str) -> DocumentProfile:
        profile = self._made.get(document_id)
        if profile is None:
            profile = self._made[document_id] = document_profile(self._passages[document_id])
        return profile

    def __iter__(self) -> Iterator[str]:
        return iter(self._passages)

    def __len__(self) -> int:
        return len(self._passages)


def document_profiles(
    passages: Sequence[Passage], stored: Mapping[str, DocumentProfile] | None = None
) -> DocumentProfiles:
    """Each document's profile over the passages that give facts: `stored` (those read with
    the documents, which must cover exactly these passages), else made when first asked for,
    from the texts' cached analyses."""
    return DocumentProfiles(passages, stored)


def document_profile(passages: Iterable[Passage]) -> DocumentProfile:
    """The profile of one document's passages (those that give no aligned facts left out)."""
    anchors: set[str] = set()
    words: set[str] = set()
    tokens = 0
    for passage in passages:
        if passage.kind in _SKIPPED_KINDS or passage.kind in _NOT_ALIGNED_KINDS:
            continue
        stored = decode_analysis(passage.analysis)
        anchors.update(stored.anchors if stored else _text_anchors(passage.text))
        norms = _passage_tokens(passage)[0]
        words.update(norms)
        tokens += len(norms)
    return DocumentProfile(anchors=frozenset(anchors), words=frozenset(words), tokens=tokens)


@paragraph_cache("text")
def _text_anchors(text: str) -> frozenset[str]:
    """The normalised names and figures of a text (single letters left out: initials)."""
    return frozenset(
        norm_token(m.group())
        for m in _TOKEN.finditer(_mask_citations(text))
        if len(m.group()) > 1 and is_anchor_token(m.group())
    )


@paragraph_cache("text")
def _text_tokens(text: str) -> tuple[tuple[str, ...], array[int]]:
    """Each token's normalised form and its (start, end) offsets, cached like the facts (the
    same documents are scanned question after question). Compact on purpose: interned words
    and an integer array take about a tenth of the memory of a tuple per token."""
    matches = list(_TOKEN.finditer(_mask_citations(text)))
    norms = tuple(sys.intern(norm_token(m.group())) for m in matches)
    return norms, array("I", [i for m in matches for i in m.span()])


def _passage_tokens(passage: Passage) -> tuple[Sequence[str], Sequence[int]]:
    stored = decode_analysis(passage.analysis)
    return (stored.norms, stored.offsets) if stored else _text_tokens(passage.text)
