"""One interface for every document format: bytes in, Markdown text and locations out.

A converter turns an original file (PDF, HTML, Word, plain text) into Markdown text that the
Markdown reader (ingest/markdown.py) parses into the same heading tree and blocks as a file a
user wrote in Markdown. Offsets, quotes and versions then point into that converted text, and
`Converted.locations` tells, for spans of it, where they came from in the original (a PDF page,
an HTML anchor), so a citation can say "manual.pdf, page 12".
"""

from __future__ import annotations

from typing import ClassVar, Protocol

import msgspec

from service.errors import KgsError

__all__ = [
    "ConversionError",
    "ConvertLimits",
    "Converted",
    "Converter",
    "Location",
]


class Location(msgspec.Struct, frozen=True, kw_only=True):
    """Where the converted text[start:end] came from in the original file."""

    start: int  # offsets into Converted.text (Python str indices)
    end: int
    page_first: int | None = None  # 1-based PDF pages
    page_last: int | None = None
    bbox: tuple[float, float, float, float] | None = None  # x0, y0, x1, y1 on page_first (pt)
    # Where each page after page_first begins, as offsets into text[start:end]: a citation of
    # a sentence in a block printed over a page break names the sentence's own page.
    page_starts: tuple[int, ...] = ()
    anchor: str | None = None  # HTML element id or nearest named anchor before the span


class Converted(msgspec.Struct, frozen=True, kw_only=True):
    text: str  # Markdown: what the reader parses and what offsets index
    media_type: str  # e.g. "application/pdf"
    locations: tuple[Location, ...] = ()  # sorted by start, not overlapping
    pages: int | None = None  # page count of a paged original
    warnings: tuple[str, ...] = ()  # kept the file, but the user should know (e.g. mostly nav)


class ConvertLimits(msgspec.Struct, frozen=True, kw_only=True):
    """Bounds that keep one hostile file from taking the process down."""

    max_pages: int = 2_000  # PDF pages read
    max_chars: int = 5_000_000  # converted text
    max_unzipped_bytes: int = 50_000_000  # DOCX: total uncompressed size of its parts
    max_zip_ratio: float = 200.0  # DOCX: uncompressed / compressed, above it a zip bomb
    max_html_depth: int = 512  # nesting deeper than this is flattened, never recursed into
    min_text_share: float = 0.2  # HTML: below this share of kept text, warn (mostly navigation)
    max_outline_entries: int = 10_000  # PDF bookmarks read (a hostile outline can be endless)


class ConversionError(KgsError, ValueError):
    """The file cannot be ingested; `reason` is the sentence a user reads (HTTP 422)."""

    http_status = 422

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Converter(Protocol):
    media_type: ClassVar[str]
    extensions: ClassVar[tuple[str, ...]]  # lower case, with the dot: (".html", ".htm")

    def sniff(self, head: bytes) -> bool:
        """True when the first bytes of a file look like this format."""
        ...

    def convert(self, data: bytes, name: str, limits: ConvertLimits) -> Converted:
        """Convert or raise ConversionError; never a partial result."""
        ...
