"""What a review binds and what it concludes, as frozen Structs (no I/O)."""

from __future__ import annotations

from typing import Any, Literal

import msgspec

__all__ = [
    "Binding",
    "BoundDocument",
    "BoundParagraph",
    "Drop",
    "Finding",
    "Method",
    "QuestionReview",
    "ReviewStatus",
]

ReviewStatus = Literal["ANSWERED", "PARTIAL", "NOT_FOUND"]
Method = Literal["deterministic", "llm"]


class BoundParagraph(msgspec.Struct, frozen=True, kw_only=True):
    """One paragraph of a bound document: `text == source[start_offset:end_offset]` (checked
    when bound; a paragraph that fails the check is not bound)."""

    id: str
    document_id: str
    path: str
    kind: str  # paragraph, list, table, code, mermaid, quote
    heading_path: tuple[str, ...]
    start_offset: int  # code points into the document's source
    end_offset: int
    start_line: int
    text: str


class BoundDocument(msgspec.Struct, frozen=True, kw_only=True):
    """A document's head version, whole: its exact source and its paragraphs."""

    id: str
    scope: str
    path: str
    title: str | None
    version: int
    content_hash: str | None
    source: str
    utf16_units: int  # of `source`
    paragraphs: tuple[BoundParagraph, ...]


class Binding(msgspec.Struct, frozen=True, kw_only=True):
    """Everything one review may read and quote: these documents, nothing else."""

    scope: str
    documents: tuple[BoundDocument, ...]  # in the order the request named them
    duplicates: int = 0  # references naming a document already named (bound once)
    # Paragraphs whose stored offsets do not reproduce their text from the source: never bound,
    # so never quoted (a sign of a damaged version; none in a healthy graph).
    unbound_paragraphs: tuple[str, ...] = ()

    @property
    def utf16_units(self) -> int:
        return sum(d.utf16_units for d in self.documents)

    @property
    def paragraphs(self) -> tuple[BoundParagraph, ...]:
        return tuple(p for d in self.documents for p in d.paragraphs)


class Finding(msgspec.Struct, frozen=True, kw_only=True):
    """A verified quote: `quote == source[start_offset:end_offset]` of a bound document, inside
    the bound paragraph `paragraph_id`."""

    paragraph_id: str
    document_id: str
    path: str
    start_offset: int
    end_offset: int
    quote: str
    document_version: int


class Drop(msgspec.Struct, frozen=True, kw_only=True):
    """Why a proposed finding did not reach the response. `paragraph_id` is kept only when it
    is one the review bound: an unknown id is proposer-authored text and never echoed."""

    reason: str
    paragraph_id: str | None = None


class QuestionReview(msgspec.Struct, frozen=True, kw_only=True):
    question: str
    status: ReviewStatus
    findings: tuple[Finding, ...]
    missing: tuple[str, ...]  # the question's own terms (or needs) the findings do not cover
    method: Method
    trace: dict[str, Any]  # how the status was reached (docs/reviews.md)
