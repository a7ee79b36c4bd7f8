"""Where converted text came from: the original file's identity and, per block, its place in it.

A converted document (PDF, HTML, Word, plain text) is parsed from its Markdown conversion, so
offsets and quotes point into that text. `Origin` keeps what a citation needs to lead a reader
back to the original: the PDF pages a paragraph was printed on (and where each later page
begins inside it), the HTML anchor nearest before it, and the original bytes for the version.
"""

from __future__ import annotations

import bisect
import hashlib
from typing import Any

import msgspec

from ingest.convert.base import Converted, Location

__all__ = ["Origin", "block_location", "origin_of"]


class Origin(msgspec.Struct, frozen=True, kw_only=True):
    media_type: str
    hash: str  # sha256 of the original bytes
    size: int  # bytes
    pages: int | None
    locations: tuple[Location, ...]
    original: bytes  # the file as the user gave it, kept by the version


def origin_of(converted: Converted, original: bytes) -> Origin:
    return Origin(
        media_type=converted.media_type,
        hash=hashlib.sha256(original).hexdigest(),
        size=len(original),
        pages=converted.pages,
        locations=tuple(sorted(converted.locations, key=lambda loc: loc.start)),
        original=original,
    )


def block_location(origin: Origin, start: int, end: int) -> dict[str, Any]:
    """The paragraph properties that place text[start:end] in the original: `pageFirst`,
    `pageLast`, `pageStarts` (offsets inside the block where each later page begins), `bbox`
    (on the first page) and `anchor`. Keys without a value are None (removed from the node)."""
    starts = [loc.start for loc in origin.locations]
    at = bisect.bisect_right(starts, start) - 1  # the last location starting at or before it
    inside = [loc for loc in origin.locations[max(at, 0):]
              if loc.start < max(end, start + 1) and loc.end > start]  # fmt: skip
    # Its own anchor, else the nearest one before it (the section's heading id).
    anchored = (loc.anchor for loc in (*inside, *reversed(origin.locations[: max(at, 0)])))
    anchor = next((a for a in anchored if a), None)
    paged = [(loc, loc.page_first) for loc in inside if loc.page_first is not None]
    if not paged:
        return {"pageFirst": None, "pageLast": None, "pageStarts": None, "bbox": None,
                "anchor": anchor}  # fmt: skip
    # Each later page begins at a location of its own, or inside one (its page_starts).
    begins = [(first + i + 1, loc.start + offset)
              for loc, first in paged for i, offset in enumerate(loc.page_starts)]  # fmt: skip
    begins += [(first, loc.start) for loc, first in paged[1:]]
    page, page_starts = paged[0][1], []
    for number, at in sorted(begins, key=lambda b: b[1]):
        if number > page:
            page_starts.extend([max(at - start, 0)] * (number - page))
            page = number
    first_location = paged[0][0]
    return {
        "pageFirst": paged[0][1],
        "pageLast": max(loc.page_last or first for loc, first in paged),
        "pageStarts": page_starts or None,
        "bbox": list(first_location.bbox) if first_location.bbox else None,
        "anchor": anchor,
    }
