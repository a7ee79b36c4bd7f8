"""The converters, and the choice of one for a file by its name and its first bytes.

Both have to agree: a PDF renamed to .docx, or a Word file saved as .md, is refused with a
sentence that names what the content is, rather than read as the wrong format.
"""

from __future__ import annotations

import codecs
from pathlib import PurePath

from ingest.convert.base import ConversionError, Converted, Converter, ConvertLimits, Location
from ingest.convert.docx import DocxConverter
from ingest.convert.html import HtmlConverter
from ingest.convert.pdf import PdfConverter
from ingest.convert.text import MarkdownConverter, TextConverter, text_like

__all__ = [
    "CONVERTERS",
    "SUPPORTED_EXTENSIONS",
    "ConversionError",
    "ConvertLimits",
    "Converted",
    "Converter",
    "Location",
    "converter_for",
]

CONVERTERS: tuple[Converter, ...] = (
    MarkdownConverter(),
    TextConverter(),
    HtmlConverter(),
    DocxConverter(),
    PdfConverter(),
)
SUPPORTED_EXTENSIONS: tuple[str, ...] = tuple(
    extension for converter in CONVERTERS for extension in converter.extensions
)
_BY_EXTENSION = {
    extension: converter for converter in CONVERTERS for extension in converter.extensions
}


def converter_for(name: str, head: bytes) -> Converter:
    """The converter for a file named `name` whose first bytes are `head`."""
    extension = PurePath(name).suffix.lower()
    converter = _BY_EXTENSION.get(extension)
    if converter is None:
        found = f"files ending in {extension}" if extension else "files without an extension"
        raise ConversionError(
            f"kgs cannot read {found}; it reads {', '.join(SUPPORTED_EXTENSIONS)}"
        )
    if not converter.sniff(head):
        raise ConversionError(f"content is {describe(head)}, but the name ends in {extension}")
    return converter


def describe(head: bytes) -> str:
    """What the first bytes of a file look like, for an error message."""
    stripped = head.lstrip()
    if b"%PDF-" in head[:1024]:
        return "a PDF"
    if head.startswith(b"PK\x03\x04"):
        if b"word/" in head:
            return "a Word (.docx) file"
        return "a zip archive (such as an Office file)"
    if head.startswith(b"\xd0\xcf\x11\xe0"):
        return "an old binary Office file (.doc, .xls or .ppt)"
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "UTF-16 text (kgs reads UTF-8)"
    if b"\x00" in head or not text_like(head):
        return "binary data"
    if stripped[:15].lower().startswith((b"<!doctype html", b"<html")):
        return "HTML"
    return "text"
