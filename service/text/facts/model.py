"""What fact extraction works on and returns: its limits, a document's passages, a paragraph's
tokens and the Fact itself."""

from __future__ import annotations

from collections.abc import Sequence
from typing import overload

import msgspec

from service.settings import FactSettings
from service.text.analysis import (
    FactKind,
    Scope,
)

__all__ = ["FACT_LAYOUT", "Fact", "FactSettings", "NodeFact", "ParagraphTokens", "Passage"]

# The layout of the Fact nodes and document profile ingest writes (ingest/facts.py), stamped on
# their Document as `factLayout`: the scan reads those of documents written in this layout only.
FACT_LAYOUT = "fact-nodes-2"


class NodeFact(msgspec.Struct, frozen=True, kw_only=True):
    """A Fact node as the scan groups it (cypher/evidence/document_paragraphs.cypher): what the
    fact is compared by, and its place among its paragraph's facts (`index`). `scope` is the
    extractor's own, without the context the node's `conditions` add (`in_context` adds it
    again to the facts the scan binds)."""

    index: int
    kind: FactKind
    key: str
    norm: str
    scope: Scope


class Passage(msgspec.Struct, frozen=True, kw_only=True):
    """One paragraph of a selected document, as read from the graph."""

    document_id: str
    path: str
    paragraph_id: str
    text: str
    start_offset: int  # of the paragraph in the source file
    start_line: int
    kind: str = "paragraph"
    analysis: bytes = b""  # the paragraph's stored TextAnalysis (analysis.py), if any
    heading_path: tuple[str, ...] = ()  # the headings the paragraph stands under
    # The paragraph's Fact nodes in index order; None when its document has none to trust (not
    # written in FACT_LAYOUT, or cut by the per-document cap), and the scan reads `analysis`.
    facts: tuple[NodeFact, ...] | None = None


class ParagraphTokens:
    """A paragraph's tokens (citation marks left out): their normalised forms, which the scan
    compares, and the forms as written, cut from the text only when read (`tokens[i]`,
    `tokens[lo:hi]`). A question's aligned facts sit in some 70 paragraphs of 60 tokens; cutting
    all of them up front cost more than the comparisons that read a few dozen."""

    __slots__ = ("_offsets", "_text", "norms")

    def __init__(self, norms: Sequence[str], text: str, offsets: Sequence[int]) -> None:
        self.norms = norms  # norm_token of each token as written
        self._text = text
        self._offsets = offsets  # start, end of each token in the text

    def __len__(self) -> int:
        return len(self.norms)

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[str, ...]: ...
    def __getitem__(self, index: int | slice) -> str | tuple[str, ...]:
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(len(self.norms))))
        if index < 0:
            index += len(self.norms)
        if not 0 <= index < len(self.norms):
            raise IndexError(index)
        return self._text[self._offsets[2 * index] : self._offsets[2 * index + 1]]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ParagraphTokens):
            return NotImplemented
        return (tuple(self.norms) == tuple(other.norms) and self._text == other._text
                and list(self._offsets) == list(other._offsets))  # fmt: skip

    def __hash__(self) -> int:
        return hash(self._text)

    def __repr__(self) -> str:
        return f"ParagraphTokens({self[:]!r})"


NO_TOKENS = ParagraphTokens((), "", ())


class Fact(msgspec.Struct, frozen=True, kw_only=True):
    kind: FactKind
    subject: str  # normalised subject with its attribute, e.g. "calibration tolerance"
    key: str  # subject key: kind + subject (aligned: kind + the frame around the value)
    value: str  # as written
    norm: str  # normalised value: equal norms state the same thing
    scope: Scope
    document_id: str
    path: str
    paragraph_id: str
    sentence_start: int  # offsets of the sentence inside the paragraph text
    sentence_end: int
    sentence: str
    value_start: int  # offsets of the value inside the paragraph text
    value_end: int
    start_offset: int  # of the sentence in the source file
    line: int  # 1-based line of the sentence in the source file
    order: int  # reading order of the fact among all extracted facts
    tokens: ParagraphTokens = NO_TOKENS  # aligned: the paragraph's tokens
    token_start: int = 0  # aligned: the value's token range in `tokens`
    token_end: int = 0
