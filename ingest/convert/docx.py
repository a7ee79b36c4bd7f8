"""Word (.docx) -> Markdown: headings from paragraph styles, lists from numbering, tables.

Library: python-docx (MIT) opens the package and resolves styles and the numbering part; the
body is then read as its XML (w:p and w:tbl in body order, content controls opened), because
python-docx has no notion of list numbering formats. mammoth (BSD-2) was the alternative: its
HTML output would have gone through html.py, but it decides list kinds and heading levels by
its own style map, while reading numFmt ourselves keeps "bulleted vs numbered" exact.

A .docx is a zip: before python-docx opens it, the member sizes are added up, and a file that
would unpack beyond `limits.max_unzipped_bytes` or `limits.max_zip_ratio` times its size is
refused as a zip bomb (zipfile also never inflates a member past its declared size).
"""

from __future__ import annotations

import io
import re
import zipfile
import zlib
from collections.abc import Iterator
from typing import Any, ClassVar

import docx
import msgspec
from docx.opc.exceptions import PackageNotFoundError
from lxml import etree

from ingest.convert.base import ConversionError, Converted, ConvertLimits
from ingest.convert.text import (
    ListItem,
    MarkdownWriter,
    escape_line,
    heading_line,
    quote,
    render_table,
)

__all__ = ["DocxConverter"]

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_DOCUMENT_PART = "word/document.xml"
_HEADING_STYLE = re.compile(r"^heading\s*([1-6])$", re.IGNORECASE)
_TITLE_STYLES = frozenset({"title"})
_QUOTE_STYLES = frozenset({"quote", "intense quote"})
_LIST_STYLE = re.compile(r"^list\s+(bullet|number)(?:\s+(\d))?$", re.IGNORECASE)
_BODY_OUTLINE_LEVEL = 9  # w:outlineLvl 9 means body text
_CONTAINERS = frozenset({f"{_W}sdt", f"{_W}sdtContent", f"{_W}customXml", f"{_W}smartTag"})
_MAX_LIST_DEPTH = 8


class DocxConverter:
    media_type: ClassVar[str] = (
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
    )
    extensions: ClassVar[tuple[str, ...]] = (".docx",)

    def sniff(self, head: bytes) -> bool:
        return head.startswith(b"PK\x03\x04")

    def convert(self, data: bytes, name: str, limits: ConvertLimits) -> Converted:
        check_zip(data, limits)
        try:
            document = docx.Document(io.BytesIO(data))
            reader = _Reader(document)
            writer = MarkdownWriter(limits)
            reader.write(document.element.body, writer)
        except (
            zipfile.BadZipFile,
            zlib.error,
            EOFError,
            KeyError,
            ValueError,
            etree.XMLSyntaxError,
            PackageNotFoundError,
        ) as error:
            raise ConversionError(f"corrupt or truncated Word file: {error}") from error
        return Converted(text=writer.text(), media_type=self.media_type, locations=writer.locations)


def check_zip(data: bytes, limits: ConvertLimits) -> None:
    """A readable zip with word/document.xml, and no zip bomb, judged by the declared sizes."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, EOFError, ValueError) as error:
        raise ConversionError(f"corrupt or truncated Word file: {error}") from error
    if not any(member.filename == _DOCUMENT_PART for member in members):
        raise ConversionError(
            f"not a Word file: the zip has no {_DOCUMENT_PART} (another Office format?)"
        )
    unpacked = sum(member.file_size for member in members)
    if unpacked > limits.max_unzipped_bytes:
        raise ConversionError(
            f"looks like a zip bomb: its parts unpack to {unpacked:,} bytes, more than the "
            f"limit of {limits.max_unzipped_bytes:,}"
        )
    ratio = unpacked / max(1, len(data))
    if ratio > limits.max_zip_ratio:
        raise ConversionError(
            f"looks like a zip bomb: it unpacks to {ratio:,.0f} times its size, more than the "
            f"limit of {limits.max_zip_ratio:,.0f}"
        )


class _Style(msgspec.Struct, frozen=True):
    name: str
    num_id: str | None  # numbering inherited from the style (List Number, List Bullet, ...)
    ilvl: int
    outline: int | None


class _Paragraph(msgspec.Struct, frozen=True):
    text: str
    heading: int  # 0: not a heading
    list_depth: int | None  # None: not a list item
    ordered: bool
    quote: bool


class _Reader:
    """Styles and numbering of one document, and the walk over its body."""

    def __init__(self, document: Any) -> None:
        self._styles = _styles(document.styles.element)
        self._default_style = _default_style_id(document.styles.element)
        self._formats = _numbering_formats(document.part)
        self._pending: list[ListItem] = []
        self._counters: dict[tuple[str, int], int] = {}

    def write(self, body: Any, writer: MarkdownWriter) -> None:
        for element in _body_elements(body):
            if element.tag == f"{_W}tbl":
                self._flush(writer)
                writer.add(render_table(_table_rows(element)))
            elif element.tag == f"{_W}p":
                self._paragraph(self._read(element), writer)
        self._flush(writer)

    def _paragraph(self, paragraph: _Paragraph, writer: MarkdownWriter) -> None:
        if not paragraph.text.strip():
            return
        if paragraph.list_depth is not None and not paragraph.heading:
            self._list_item(paragraph, writer)
            return
        self._flush(writer)
        if paragraph.heading:
            writer.add(heading_line(paragraph.heading, paragraph.text))
        else:
            block = _lines(paragraph.text)
            writer.add(quote(block) if paragraph.quote else block)

    def _list_item(self, paragraph: _Paragraph, writer: MarkdownWriter) -> None:
        depth = paragraph.list_depth or 0
        if self._pending and depth == 0 and self._pending[0].ordered != paragraph.ordered:
            self._flush(writer)  # a top-level change of kind is another Markdown list
        key = (str(paragraph.ordered), depth)
        number = self._counters.get(key, 0) + 1
        self._counters = {k: v for k, v in self._counters.items() if k[1] <= depth}
        self._counters[key] = number
        item = ListItem(
            text=_lines(paragraph.text), depth=depth, ordered=paragraph.ordered, number=number
        )
        self._pending.append(item)

    def _flush(self, writer: MarkdownWriter) -> None:
        writer.add_list(self._pending)
        self._pending, self._counters = [], {}

    def _read(self, p: Any) -> _Paragraph:
        props = p.find(f"{_W}pPr")
        style_id = _val(props, "pStyle") or self._default_style
        style = self._styles.get(style_id or "", _Style(name="", num_id=None, ilvl=0, outline=None))
        num_id, ilvl = style.num_id, style.ilvl
        own = props.find(f"{_W}numPr") if props is not None else None
        if own is not None:
            num_id = _val(own, "numId") or num_id
            ilvl = _int(_val(own, "ilvl"), ilvl)
        outline = _int(_val(props, "outlineLvl"), -1)
        outline_level = outline if outline >= 0 else style.outline
        listed = self._list_kind(style.name, num_id, ilvl)
        return _Paragraph(
            text=_paragraph_text(p),
            heading=_heading_level(style.name, outline_level),
            list_depth=None if listed is None else min(_depth(style.name, ilvl), _MAX_LIST_DEPTH),
            ordered=bool(listed),
            quote=style.name.lower() in _QUOTE_STYLES,
        )

    def _list_kind(self, style_name: str, num_id: str | None, ilvl: int) -> bool | None:
        """True numbered, False bulleted, None not a list item."""
        if num_id and num_id != "0":
            fmt = self._formats.get((num_id, ilvl)) or self._formats.get((num_id, 0))
            if fmt is not None:
                return fmt not in ("bullet", "none")
        named = _LIST_STYLE.match(style_name)
        if named:
            return named.group(1).lower() == "number"
        return None


def _depth(style_name: str, ilvl: int) -> int:
    """The list level: w:ilvl, or the style's number ("List Bullet 2" is the second level even
    though its own numbering definition starts at level 0)."""
    named = _LIST_STYLE.match(style_name)
    return max(ilvl, int(named.group(2)) - 1 if named and named.group(2) else 0)


def _body_elements(body: Any) -> Iterator[Any]:
    """w:p and w:tbl in body order; content controls and custom XML are opened (explicit
    stack, no recursion)."""
    stack = list(reversed(body))
    while stack:
        element = stack.pop()
        if element.tag in _CONTAINERS:
            stack.extend(reversed(element))
        elif element.tag in (f"{_W}p", f"{_W}tbl"):
            yield element


def _paragraph_text(p: Any) -> str:
    """The visible text of a paragraph: runs, tabs, breaks; deleted text and field codes are
    other element names (w:delText, w:instrText) and so are left out."""
    parts: list[str] = []
    for element in p.iter(f"{_W}t", f"{_W}tab", f"{_W}br", f"{_W}cr", f"{_W}noBreakHyphen"):
        tag = element.tag
        if tag == f"{_W}t":
            parts.append(element.text or "")
        elif tag == f"{_W}tab":
            parts.append(" ")
        elif tag == f"{_W}noBreakHyphen":
            parts.append("-")
        else:
            parts.append("\n")
    return "".join(parts).replace("\u00ad", "")


def _lines(text: str) -> str:
    """Paragraph text as Markdown lines; a manual line break stays a (hard) break."""
    lines = (escape_line(line) for line in text.split("\n"))
    return "  \n".join(line for line in lines if line)


def _table_rows(table: Any) -> list[list[str]]:
    rows: list[list[str]] = []
    for row in table.iterchildren(f"{_W}tr"):
        cells: list[str] = []
        for cell in row.iterchildren(f"{_W}tc"):
            text = " ".join(_paragraph_text(p) for p in cell.iter(f"{_W}p"))
            cells.append(text)
            span = _int(_val(cell.find(f"{_W}tcPr"), "gridSpan"), 1)
            cells.extend([""] * (max(1, span) - 1))
        if cells:
            rows.append(cells)
    return rows


def _heading_level(style_name: str, outline: int | None) -> int:
    named = _HEADING_STYLE.match(style_name)
    if named:
        return int(named.group(1))
    if style_name.lower() in _TITLE_STYLES:
        return 1
    if outline is not None and 0 <= outline < _BODY_OUTLINE_LEVEL:
        return min(outline + 1, 6)
    return 0


# --- styles and numbering -----------------------------------------------------------------------


def _styles(root: Any) -> dict[str, _Style]:
    """Paragraph styles by id, numbering and outline level inherited along w:basedOn."""
    raw: dict[str, Any] = {}
    for style in root.iterchildren(f"{_W}style"):
        if style.get(f"{_W}type") == "paragraph" and style.get(f"{_W}styleId"):
            raw[style.get(f"{_W}styleId")] = style
    return {style_id: _resolve(style_id, raw) for style_id in raw}


def _resolve(style_id: str, raw: dict[str, Any]) -> _Style:
    name = _val(raw[style_id], "name") or style_id
    num_id: str | None = None
    ilvl: int | None = None
    outline: int | None = None
    seen: set[str] = set()
    current: str | None = style_id
    while current in raw and current not in seen:  # nearest definition wins
        seen.add(current)
        props = raw[current].find(f"{_W}pPr")
        numbering = props.find(f"{_W}numPr") if props is not None else None
        if numbering is not None:
            num_id = num_id or _val(numbering, "numId")
            ilvl = ilvl if ilvl is not None else _int(_val(numbering, "ilvl"), -1)
        if outline is None and _val(props, "outlineLvl") is not None:
            outline = _int(_val(props, "outlineLvl"), _BODY_OUTLINE_LEVEL)
        current = _val(raw[current], "basedOn")
    return _Style(name=name, num_id=num_id, ilvl=max(ilvl or 0, 0), outline=outline)


def _default_style_id(root: Any) -> str | None:
    for style in root.iterchildren(f"{_W}style"):
        if style.get(f"{_W}type") == "paragraph" and style.get(f"{_W}default") in ("1", "true"):
            return str(style.get(f"{_W}styleId"))
    return None


def _numbering_formats(part: Any) -> dict[tuple[str, int], str]:
    """(numId, level) -> numFmt ("bullet", "decimal", ...), overrides applied."""
    try:
        root = part.numbering_part.element
    except (KeyError, NotImplementedError):
        return {}
    abstract: dict[str, dict[int, str]] = {}
    for definition in root.iterchildren(f"{_W}abstractNum"):
        abstract[definition.get(f"{_W}abstractNumId")] = _level_formats(definition)
    formats: dict[tuple[str, int], str] = {}
    for num in root.iterchildren(f"{_W}num"):
        num_id = num.get(f"{_W}numId")
        levels = dict(abstract.get(_val(num, "abstractNumId") or "", {}))
        for override in num.iterchildren(f"{_W}lvlOverride"):
            levels.update(_level_formats(override))
        formats.update({(num_id, level): fmt for level, fmt in levels.items()})
    return formats


def _level_formats(element: Any) -> dict[int, str]:
    formats = {}
    for level in element.iterchildren(f"{_W}lvl"):
        fmt = _val(level, "numFmt")
        if fmt:
            formats[_int(level.get(f"{_W}ilvl"), 0)] = fmt
    return formats


def _val(element: Any, child: str) -> str | None:
    """The w:val of a direct child, e.g. _val(pPr, "pStyle")."""
    if element is None:
        return None
    found = element.find(f"{_W}{child}")
    return None if found is None else found.get(f"{_W}val")


def _int(value: str | None, default: int) -> int:
    try:
        return int(value) if value is not None else default
    except ValueError:
        return default
