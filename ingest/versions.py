"""Document versions and the head compare-and-swap, as pure decisions (docs/versions.md).

A document's versions are immutable: each holds its exact source and the structure it was read
into (headings and paragraphs with offsets), compressed, on a `DocumentVersion` node. Only the
head version is projected into the searchable graph (Heading, Paragraph, knowledge points and
relations), so history costs the answer path nothing. A write decides, under the document's
write lock (cypher/ingest/lock_document.cypher), what it does to the head:

- a new content hash makes a new version (head + 1);
- the same content on a withdrawn document restores it (same version);
- the same content on a document written before versions existed adopts its head as a version
  (same number; the feed announces it as added, so replaying the feed still rebuilds the state);
- the same content with another unit hash (relations resolved differently, a new analysis
  version) rewrites the projection in place: a version is its source, not its derivations;
- otherwise nothing is written.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping
from typing import Any, Literal

import msgspec

from service.errors import KgsError

__all__ = [
    "ACTIVE",
    "WITHDRAWN",
    "HeadChanged",
    "HeadState",
    "NotWithdrawable",
    "WriteKind",
    "decide_write",
    "decode_structure",
    "encode_structure",
    "parse_if_match",
]

ACTIVE = "active"
WITHDRAWN = "withdrawn"
NEW = "new"  # a document node created by this very transaction (no head yet)
WriteKind = Literal["added", "updated", "restored", "adopted", "rewritten", "unchanged"]
_STRUCTURE_LEVEL = 6  # zlib level: structure is written once per version and read rarely


class HeadChanged(KgsError, ValueError):
    """An If-Match naming a version that is no longer the head (HTTP 412)."""

    http_status = 412

    def __init__(self, document_id: str, expected: int, current: int) -> None:
        self.document_id, self.expected, self.current = document_id, expected, current
        where = f"is at version {current}" if current else "does not exist"
        super().__init__(f"document {document_id} {where}, not version {expected} (If-Match)")


class NotWithdrawable(KgsError, ValueError):
    """Withdrawing a withdrawn document, or restoring an active one (HTTP 409)."""

    http_status = 409


class HeadState(msgspec.Struct, frozen=True, kw_only=True):
    """The head as the write transaction sees it once it holds the document's lock."""

    version: int  # 0: no version yet
    status: str  # active | withdrawn | new
    content_hash: str | None
    unit_hash: str | None
    embedding_status: str | None
    has_version_node: bool  # False for documents written before versions existed

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> HeadState:
        return cls(
            version=int(row["version"] or 0), status=str(row["status"] or ACTIVE),
            content_hash=row["contentHash"], unit_hash=row["unitHash"],
            embedding_status=row["embeddingStatus"], has_version_node=bool(row["hasVersion"]),
        )  # fmt: skip


def decide_write(
    head: HeadState, content_hash: str, unit_hash: str, embedding_status: str
) -> tuple[WriteKind, int]:
    """What an upload of this content does to the head, and the head's version after it."""
    if head.version == 0 or head.status == NEW:
        return "added", 1
    if head.content_hash != content_hash:
        return "updated", head.version + 1
    if not head.has_version_node:
        return "adopted", head.version
    if head.status == WITHDRAWN:
        return "restored", head.version
    if head.unit_hash != unit_hash or head.embedding_status != embedding_status:
        return "rewritten", head.version
    return "unchanged", head.version


def parse_if_match(header: str | None) -> int | None:
    """The version an If-Match header asks for: `"3"` (an ETag kgs gave). None without one.
    A weak tag never matches (RFC 9110 compares If-Match strongly), so it reads as version -1."""
    if header is None:
        return None
    tag = header.strip()
    if tag.startswith('"') and tag.endswith('"') and tag[1:-1].isdigit() and len(tag) <= 20:
        return int(tag[1:-1])
    return -1


def encode_structure(headings: list[dict[str, Any]], paragraphs: list[dict[str, Any]]) -> bytes:
    """A version's headings and paragraphs exactly as the API returns them, compressed."""
    return zlib.compress(
        msgspec.json.encode({"headings": headings, "paragraphs": paragraphs}), _STRUCTURE_LEVEL
    )


def decode_structure(blob: bytes) -> dict[str, list[dict[str, Any]]]:
    return msgspec.json.decode(zlib.decompress(blob))  # type: ignore[no-any-return]
