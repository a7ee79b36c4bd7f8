"""Binding: the documents a review names, read whole in one statement, checked and counted.

A review binds each document's head version exactly: its stored source (`DocumentVersion.source`)
and the paragraphs of its stored structure, whose offsets index that source. The bound text is
counted in UTF-16 code units and never cut: over the limit, the review is refused (413).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from ingest.versions import ACTIVE, decode_structure
from service.db.graph import Graph
from service.errors import KgsError
from service.review.model import Binding, BoundDocument, BoundParagraph

__all__ = [
    "DocumentRefs",
    "ReviewDocumentNotFound",
    "ReviewDocumentUnavailable",
    "ReviewScopeConflict",
    "ReviewTooLarge",
    "bind",
    "check_limit",
    "read_documents",
    "split_refs",
    "utf16_units",
]

_DOCUMENT_ID = re.compile(r"^d_[0-9a-f]{8,64}$")


class ReviewDocumentNotFound(KgsError, LookupError):
    """A named document that does not exist or lies outside the key's scopes (the same answer
    for both, as everywhere in the API)."""

    http_status = 404


class ReviewScopeConflict(KgsError, ValueError):
    """The documents lie in several scopes, or outside the scope the request names."""

    http_status = 422


class ReviewDocumentUnavailable(KgsError, ValueError):
    """A document that exists but has no current text to bind (withdrawn, or written before
    versions were kept)."""

    http_status = 409


class ReviewTooLarge(KgsError, ValueError):
    """The bound text is over the limit; it is refused, never truncated."""

    http_status = 413

    def __init__(self, units: int, limit: int, documents: Sequence[tuple[str, str, int]]) -> None:
        self.units, self.limit, self.documents = units, limit, tuple(documents)
        super().__init__(
            f"the documents hold {units} UTF-16 code units, over the review limit of {limit} "
            f"(KGS_REVIEW_MAX_UTF16_UNITS) by {units - limit}; review fewer or shorter documents"
        )

    @property
    def over_by(self) -> int:
        return self.units - self.limit


class DocumentRefs(msgspec.Struct, frozen=True):
    """The request's references, split by kind: document ids, and paths with the scope their
    first segment names (the (scope, path) index finds them)."""

    ids: tuple[str, ...]
    paths: tuple[tuple[str, str], ...]  # (scope, path)


def split_refs(refs: Sequence[str]) -> DocumentRefs:
    ids = tuple(r for r in refs if _DOCUMENT_ID.match(r))
    paths = tuple((r.split("/", 1)[0], r) for r in refs if not _DOCUMENT_ID.match(r))
    return DocumentRefs(ids=ids, paths=paths)


def utf16_units(text: str) -> int:
    """Length in UTF-16 code units: a character beyond U+FFFF counts two."""
    return len(text) if text.isascii() else len(text.encode("utf-16-le", "surrogatepass")) // 2


def read_documents(
    graph: Graph, refs: Sequence[str], scopes: Sequence[str] | None
) -> list[dict[str, Any]]:
    """The named documents of the readable scopes (`scopes` None: every scope), each with its
    head version's source and structure, in one statement."""
    split = split_refs(refs)
    return graph.read(
        "review/bound_documents",
        ids=list(split.ids),
        paths=[{"scope": scope, "path": path} for scope, path in split.paths],
        scopes=None if scopes is None else list(scopes),
    )


def bind(rows: Sequence[Mapping[str, Any]], refs: Sequence[str], scope: str | None) -> Binding:
    """The binding of `refs` from the rows read for them; `scope`: the one the request names.

    Errors: a reference without a row (unknown or unreadable) 404; documents of several scopes,
    or outside `scope`, 422; a withdrawn document or one without a stored version 409."""
    by_ref = {str(row["ref"]): row for row in rows}
    ordered: list[Mapping[str, Any]] = []
    for ref in refs:
        row = by_ref.get(ref)
        if row is None:
            raise ReviewDocumentNotFound(f"document {ref!r} not found")
        if all(row["id"] != seen["id"] for seen in ordered):
            ordered.append(row)
    scopes = sorted({str(row["scope"]) for row in ordered})
    if scope is not None and scopes != [scope]:
        outside = [str(r["path"]) for r in ordered if r["scope"] != scope]
        raise ReviewScopeConflict(
            f"a review reads one scope: {', '.join(outside)} not in scope {scope!r}"
        )
    if len(scopes) > 1:
        raise ReviewScopeConflict(
            f"a review reads one scope; the documents are in {len(scopes)}: {', '.join(scopes)}"
        )
    documents: list[BoundDocument] = []
    unbound: list[str] = []
    for row in ordered:
        document, skipped = _bound_document(row)
        documents.append(document)
        unbound.extend(skipped)
    return Binding(
        scope=scopes[0], documents=tuple(documents), duplicates=len(refs) - len(ordered),
        unbound_paragraphs=tuple(unbound),
    )  # fmt: skip


def check_limit(binding: Binding, limit: int) -> None:
    """ReviewTooLarge when the bound text is over `limit` UTF-16 code units."""
    if binding.utf16_units > limit:
        raise ReviewTooLarge(
            binding.utf16_units, limit,
            [(d.id, d.path, d.utf16_units) for d in binding.documents],
        )  # fmt: skip


def _bound_document(row: Mapping[str, Any]) -> tuple[BoundDocument, list[str]]:
    path = str(row["path"])
    if (row["status"] or ACTIVE) != ACTIVE:
        raise ReviewDocumentUnavailable(f"document {path} is withdrawn: restore it to review it")
    if row["source"] is None or row["structure"] is None:
        raise ReviewDocumentUnavailable(
            f"document {path} has no stored version (written before versions were kept): "
            "ingest it again to review it"
        )
    source = str(row["source"])
    paragraphs: list[BoundParagraph] = []
    skipped: list[str] = []
    for p in decode_structure(bytes(row["structure"]))["paragraphs"]:
        start, end, text = int(p["startOffset"]), int(p["endOffset"]), str(p["text"])
        if source[start:end] != text:  # the offsets must reproduce the text, or no quote could
            skipped.append(str(p["id"]))
            continue
        paragraphs.append(BoundParagraph(
            id=str(p["id"]), document_id=str(row["id"]), path=path, kind=str(p["kind"]),
            heading_path=tuple(p.get("headingPath") or ()), start_offset=start, end_offset=end,
            start_line=int(p["startLine"]), text=text,
        ))  # fmt: skip
    document = BoundDocument(
        id=str(row["id"]), scope=str(row["scope"]), path=path, title=row.get("title"),
        version=int(row["version"]), content_hash=row.get("contentHash"), source=source,
        utf16_units=utf16_units(source), paragraphs=tuple(paragraphs),
    )  # fmt: skip
    return document, skipped
