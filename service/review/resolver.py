"""The observed-id resolver: every finding of a review passes through it.

A finding names a paragraph and a quote. It reaches the response only when the paragraph is one
this review bound and the quote is an exact, non-blank substring of that paragraph's text (at the
given place, when a place is given); its offsets are then computed here from the bound paragraph,
never taken from the proposer. Anything else becomes a Drop with its reason, for the trace.
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from service.review.model import Binding, BoundParagraph, Drop, Finding

__all__ = ["ObservedIds"]


class ObservedIds(msgspec.Struct, frozen=True):
    """The bound paragraphs by id, with the version of the document each belongs to."""

    paragraphs: dict[str, BoundParagraph]
    versions: dict[str, int]  # document id -> bound version

    @classmethod
    def of(cls, binding: Binding) -> ObservedIds:
        return cls.bound(binding.paragraphs, {d.id: d.version for d in binding.documents})

    @classmethod
    def bound(cls, paragraphs: Iterable[BoundParagraph], versions: dict[str, int]) -> ObservedIds:
        return cls({p.id: p for p in paragraphs}, dict(versions))

    def __contains__(self, paragraph_id: object) -> bool:
        return isinstance(paragraph_id, str) and paragraph_id in self.paragraphs

    def __len__(self) -> int:
        return len(self.paragraphs)

    def resolve(self, paragraph_id: str, quote: str, at: int | None = None) -> Finding | Drop:
        """The finding, or why not. `at`: the quote's offset inside the paragraph's text, when
        the proposer knows it (the deterministic reviewer); otherwise its first occurrence."""
        paragraph = self.paragraphs.get(paragraph_id)
        if paragraph is None:
            return Drop(reason="unbound_paragraph")
        if not quote.strip():
            return Drop(reason="empty_quote", paragraph_id=paragraph_id)
        start = paragraph.text.find(quote) if at is None else at
        if start < 0 or paragraph.text[start : start + len(quote)] != quote:
            return Drop(reason="quote_not_in_paragraph", paragraph_id=paragraph_id)
        absolute = paragraph.start_offset + start
        return Finding(
            paragraph_id=paragraph_id, document_id=paragraph.document_id, path=paragraph.path,
            start_offset=absolute, end_offset=absolute + len(quote), quote=quote,
            document_version=self.versions[paragraph.document_id],
        )  # fmt: skip
