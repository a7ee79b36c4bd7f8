"""PDF -> Markdown: text lines from the characters' positions, in reading order, as blocks.

Library: pypdfium2 5.15.2 (Apache-2.0 or BSD-3; PDFium BSD-3/Apache-2.0). Compared with
pdfminer.six 20260107 (MIT) on a 300-page Chromium print (about 650,000 characters) on 2 cores:

- speed: pypdfium2 reads every character with its box, font size and weight in 5.3 s (25 MB
  peak RSS), and this whole converter takes 4.2-6.1 s (56 MB); pdfminer.six needs 37.3 s
  (55 MB) for its layout analysis alone, most of a 2-minute ingest before any embedding.
- fonts: both give each character's font size and font name (bold from the name, such as
  "DejaVuSans-Bold"; PDFium's weight field is no help: LibreOffice writes 400 for bold).
- outline: both read bookmarks with their target pages.
- reading order: pdfminer.six orders its text boxes itself (the boxes_flow heuristic); PDFium
  gives characters in content-stream order, so the layout here is our own: characters -> line
  fragments -> columns (an empty vertical strip with prose on both sides) -> rows -> blocks.

PDFium marks a hyphen it finds at a line end (code 2) and repairs what it can of a damaged
file; a file without its end marker (%%EOF) is refused as truncated, since a repaired half would
be a partial result.

Headings come from the outline when its titles name lines of the text, otherwise from font size
and weight relative to the body font (the most common size) and from numbered titles ("2.3
Cleaning the filter"). Running headers and footers (text repeated at the same height in the
outer rows of many pages, digits ignored) and page numbers are dropped; a paragraph that goes on
over a page or column break is one paragraph. Tables are best effort: rows whose cells stand
apart become a pipe table, cells placed by their left edges.
"""

from __future__ import annotations

import ctypes
import itertools
import math
import re
import statistics
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar, Literal

import msgspec
import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from ingest.convert.base import ConversionError, Converted, ConvertLimits
from ingest.convert.text import (
    ListItem,
    MarkdownWriter,
    Where,
    escape_line,
    heading_line,
    render_code,
    render_table,
)
from service.text.vocabulary import english_words

__all__ = ["PdfConverter"]

_END_MARKER_WINDOW = 2048  # %%EOF must be among the last bytes (the spec says 1024; be lenient)
# Characters.
_SPACES = frozenset({0x20, 0xA0, 0x09, 0x2002, 0x2003, 0x2009, 0x3000})
_SOFT_HYPHENS = frozenset({0x02, 0xAD, 0xFFFE})  # PDFium writes 2 for a hyphen it saw at line end
_SOFT = "\u00ad"  # kept at a fragment's end until lines are joined
_LIGATURES = {0xFB00: "ff", 0xFB01: "fi", 0xFB02: "fl", 0xFB03: "ffi", 0xFB04: "ffl", 0xFB06: "st"}
_FONT_NAME_BYTES = 128
_FIXED_PITCH = 1  # PDF font descriptor flag bits
_FORCE_BOLD = 1 << 18
_BOLD_WEIGHT = 600
_BOLD_NAMES = ("bold", "black", "heavy", "semibold", "demi")
_MONO_NAMES = ("mono", "courier", "consol", "menlo", "code")
# Geometry, relative to a line's height (its characters' loose boxes, about 1.15 font sizes).
_WORD_GAP = 0.15  # a gap wider than this between two characters is a space
_FRAGMENT_GAP = 1.5  # wider than this on one row: another column or table cell
_SAME_ROW = 0.5  # vertical overlap that puts two boxes on one row
_BAND_GAP = 0.7  # a vertical gap this tall, across the whole width, separates page bands
_PARAGRAPH_GAP = 0.6  # more space than this between two lines ends a paragraph
_TABLE_ROW_GAP = 1.2  # table rows have padding: they may stand further apart
_CODE_GAP = 2.0  # code blocks closer than this are one block
_INDENT = 1.0  # a line starting this much right of the one above starts a paragraph
_SHORT_LINE = 0.8  # a line ending before this share of its column's width may end a paragraph
_GUTTER = 1.0  # minimum width of the empty strip between two columns
_GUTTER_ZONE = 0.2  # a gutter lies this share of the width away from either edge
_COLUMN_FILL = 0.7  # median line width / column width of real columns (not table cells)
_COLUMN_LINES = 2  # lines on each side, at least
# Running headers, footers and page numbers.
_MARGIN_BAND = 0.12  # top and bottom share of the page height searched
_RUNNING_PAGES = 3  # repeated on this many pages (all of them in a shorter document)
_RUNNING_TOLERANCE = 3.0  # points of vertical drift allowed
_FRAME_ROWS = 3  # a header or footer has at most this many rows
_FRAME_GAP = 1.0  # and is set apart from the body by at least this (line heights)
_PAGE_NUMBER = re.compile(
    r"^(?:(?:page|p\.|seite|pag\.|página)\s*)?\d{1,4}(?:\s*(?:/|of|von|de|sur)\s*\d{1,4})?$"
    r"|^[-–—]\s*\d{1,4}\s*[-–—]$|^[ivxlcdm]{1,6}$",
    re.IGNORECASE,
)
# Headings and lists.
_HEADING_RATIO = 1.12  # font size / body size of a heading
_BOLD_RATIO = 0.95  # a bold heading at about the body size
_SIZE_CLUSTER = 0.04  # sizes this close are one heading style
_MAX_HEADING_LINES = 3
_MAX_HEADING_WORDS = 25
_MAX_BOLD_HEADING_WORDS = 15
_MAX_NUMBERED_WORDS = 12
_NUMBERED_TITLE = re.compile(r"^(\d{1,2}(?:\.\d{1,2}){0,4})\.?\s+\S")
_NUMBERED_SINGLE = re.compile(r"^\d{1,2}\s+[A-ZÀ-Þ]")  # "2 Installation", not "2 m"
_BULLET = re.compile(r"^(?:[•◦▪▫‣⁃●○■□∙·\uf0b7\uf0a7\uf076\uf0d8\uf0fc\uf0a8]\s*|[-–—*]\s+)(?=\S)")
_NUMBER = re.compile(r"^(?:\(?(\d{1,3})[.)])\s+(?=\S)")
_STEP = re.compile(r"^step\s+(\d{1,3})\b", re.IGNORECASE)
_MONO_SIZE_SPREAD = 0.25  # a code span's font size within a quarter of the prose's
_LINE_END_HYPHENS = frozenset({"-", "\u2010", _SOFT})
_DASHES = frozenset({"\u2013", "\u2014"})
_WORD = re.compile(r"\w+(?:-\w+)*")
_TAIL = re.compile(r"\w+$")  # the word before a line-end hyphen
_HEAD = re.compile(r"^\w+")  # and the word after it
_SENTENCE_END = re.compile(r"[.!?:;][\"'”’)\]]*$")
_NORMAL = re.compile(r"[\W_]+")


class PdfConverter:
    media_type: ClassVar[str] = "application/pdf"
    extensions: ClassVar[tuple[str, ...]] = (".pdf",)

    def sniff(self, head: bytes) -> bool:
        return b"%PDF-" in head[:1024]

    def convert(self, data: bytes, name: str, limits: ConvertLimits) -> Converted:
        if b"%%EOF" not in data[-_END_MARKER_WINDOW:]:
            raise ConversionError(
                "corrupt or truncated PDF: the file does not end with %%EOF, it was cut short"
            )
        pages, outline = _read(data, limits)
        empty = sum(1 for page in pages if not page.fragments)
        if empty == len(pages):
            raise ConversionError("no text layer (a scanned PDF?); no OCR is configured")
        writer = MarkdownWriter(limits)
        _write(_Layout(pages, outline).pieces(), writer)
        warnings: tuple[str, ...] = ()
        if empty:
            warnings = (
                f"{empty} of {len(pages)} pages have no text layer (scanned?); their content "
                "is missing",
            )
        return Converted(
            text=writer.text(),
            media_type=self.media_type,
            locations=writer.locations,
            pages=len(pages),
            warnings=warnings,
        )


# --- reading ------------------------------------------------------------------------------------


class _Line(msgspec.Struct, frozen=True):
    """A run of characters on one row (a fragment), later a whole row of a column."""

    text: str
    page: int  # 1-based
    x0: float
    y0: float  # PDF space: y grows upwards
    x1: float
    y1: float
    size: float  # font size as PDFium reports it: compared between lines only
    bold: bool
    mono: bool
    cells: tuple[tuple[float, str], ...] = ()  # (x0, text) of a row's fragments: a table row

    @property
    def height(self) -> float:
        return max(self.y1 - self.y0, 0.1)


class _Page(msgspec.Struct, frozen=True):
    number: int
    height: float
    fragments: tuple[_Line, ...]


class _Entry(msgspec.Struct, frozen=True):
    """An outline (bookmark) entry."""

    title: str
    level: int  # 0 at the top
    page: int  # 1-based


def _read(data: bytes, limits: ConvertLimits) -> tuple[list[_Page], list[_Entry]]:
    document = _open(data)
    try:
        count = len(document)
        if count > limits.max_pages:
            raise ConversionError(
                f"the PDF has {count:,} pages, more than the limit of {limits.max_pages:,}"
            )
        pages: list[_Page] = []
        chars = 0
        for index in range(count):
            pages.append(_read_page(document, index))
            chars += sum(len(line.text) for line in pages[-1].fragments)
            if chars > limits.max_chars:
                raise ConversionError(
                    f"the PDF has more than the limit of {limits.max_chars:,} characters of text"
                )
        return pages, _outline(document, limits)
    except pdfium.PdfiumError as error:
        raise ConversionError(f"corrupt or truncated PDF: {error}") from error
    finally:
        document.close()


def _open(data: bytes) -> Any:
    try:
        return pdfium.PdfDocument(data)
    except pdfium.PdfiumError as error:
        if error.err_code in (pdfium_c.FPDF_ERR_PASSWORD, pdfium_c.FPDF_ERR_SECURITY):
            raise ConversionError(
                "encrypted PDF: kgs cannot read it without its password"
            ) from error
        raise ConversionError(f"corrupt or truncated PDF: {error}") from error


def _read_page(document: Any, index: int) -> _Page:
    page = document[index]
    try:
        _, height = page.get_size()
        textpage = page.get_textpage()
        try:
            fragments = _fragments(textpage.raw, index + 1)
        finally:
            textpage.close()
    finally:
        page.close()
    return _Page(number=index + 1, height=height, fragments=tuple(fragments))


def _fragments(raw: Any, page: int) -> list[_Line]:
    """The page's characters, in PDFium's order, cut into runs on one row."""
    builder = _FragmentBuilder(raw, page)
    rect = pdfium_c.FS_RECTF()
    rect_ref = ctypes.byref(rect)
    get_unicode = pdfium_c.FPDFText_GetUnicode
    get_box = pdfium_c.FPDFText_GetLooseCharBox
    get_size = pdfium_c.FPDFText_GetFontSize
    for index in range(pdfium_c.FPDFText_CountChars(raw)):
        code = get_unicode(raw, index)
        if code in _SPACES:
            builder.space()
        elif _printable(code) and get_box(raw, index, rect_ref):
            box = (rect.left, rect.bottom, rect.right, rect.top)
            builder.char(code, index, box, get_size(raw, index))
    return builder.finish()


def _printable(code: int) -> bool:
    return (code >= 0x20 or code in _SOFT_HYPHENS) and code not in (0xFEFF, 0x200B)


class _FragmentBuilder:
    """Characters -> fragments: a new one starts on another row or after a wide gap."""

    def __init__(self, raw: Any, page: int) -> None:
        self._raw = raw
        self._page = page
        self._done: list[_Line] = []
        self._chars: list[str] = []
        self._indices: list[int] = []
        self._sizes: list[float] = []
        self._box = (0.0, 0.0, 0.0, 0.0)
        self._last_x0 = 0.0  # of the last character: a ligature's second half shares its box
        self._last_x1 = 0.0
        self._space = False
        self._font = ctypes.create_string_buffer(_FONT_NAME_BYTES)
        self._flags = ctypes.c_int()

    def space(self) -> None:
        self._space = True

    def char(
        self, code: int, index: int, box: tuple[float, float, float, float], size: float
    ) -> None:
        x0, y0, x1, y1 = box
        height = max(y1 - y0, 0.1)
        size = size if size > 0 else height  # Type 3 fonts may report no size
        if self._chars and not self._continues(x0, y0, y1, height):
            self._end()
        if self._chars and (self._space or x0 - self._last_x1 > _WORD_GAP * height):
            self._chars.append(" ")
        self._space = False
        self._chars.append(_LIGATURES.get(code) or (_SOFT if code in _SOFT_HYPHENS else chr(code)))
        self._indices.append(index)
        self._sizes.append(size)
        if len(self._indices) == 1:
            self._box = box
        else:
            bx0, by0, bx1, by1 = self._box
            self._box = (min(bx0, x0), min(by0, y0), max(bx1, x1), max(by1, y1))
        self._last_x0 = x0
        self._last_x1 = max(self._last_x1, x1) if len(self._indices) > 1 else x1

    def finish(self) -> list[_Line]:
        self._end()
        return self._done

    def _continues(self, x0: float, y0: float, y1: float, height: float) -> bool:
        _, by0, _, by1 = self._box
        line_height = max(by1 - by0, 0.1)
        overlap = min(y1, by1) - max(y0, by0)
        if overlap < _SAME_ROW * min(height, line_height):
            return False
        backwards = x0 < self._last_x0 - _SAME_ROW * height
        return not backwards and x0 - self._last_x1 <= _FRAGMENT_GAP * max(height, line_height)

    def _end(self) -> None:
        text = "".join(self._chars).strip()
        if text:
            text = text[:-1].replace(_SOFT, "") + text[-1]  # only a final soft hyphen counts
            bold, mono = self._font_of(self._indices)
            x0, y0, x1, y1 = self._box
            size = self._size_of()
            self._done.append(_Line(text, self._page, x0, y0, x1, y1, size, bold, mono))
        self._chars, self._indices, self._sizes = [], [], []
        self._space = False

    def _size_of(self) -> float:
        """The run's most common font size, its monospaced characters left out when it has
        others: code spans inside a prose line are set smaller (13 px against 16 in Chromium)
        and would otherwise make a line of prose look smaller than its neighbours."""
        counts = Counter(round(size, 1) for size in self._sizes)
        if len(counts) > 1:
            first: dict[float, int] = {}
            for index, size in zip(self._indices, self._sizes, strict=True):
                first.setdefault(round(size, 1), index)
            prose = {size: n for size, n in counts.items() if not self._font_sample(first[size])[1]}
            counts = Counter(prose) or counts
        return counts.most_common(1)[0][0]

    def _font_of(self, indices: list[int]) -> tuple[bool, bool]:
        """Bold and monospaced when the first, middle and last characters are: a bold word
        inside a line does not make the line bold."""
        samples = [self._font_sample(indices[i]) for i in (0, len(indices) // 2, -1)]
        return all(bold for bold, _ in samples), all(mono for _, mono in samples)

    def _font_sample(self, index: int) -> tuple[bool, bool]:
        pdfium_c.FPDFText_GetFontInfo(
            self._raw, index, self._font, _FONT_NAME_BYTES, ctypes.byref(self._flags)
        )
        name = self._font.value.decode("latin-1").lower()
        flags = self._flags.value
        bold = any(word in name for word in _BOLD_NAMES) or bool(flags & _FORCE_BOLD)
        bold = bold or pdfium_c.FPDFText_GetFontWeight(self._raw, index) >= _BOLD_WEIGHT
        mono = any(word in name for word in _MONO_NAMES) or bool(flags & _FIXED_PITCH)
        return bold, mono


def _outline(document: Any, limits: ConvertLimits) -> list[_Entry]:
    entries: list[_Entry] = []
    for bookmark in document.get_toc():
        if len(entries) >= limits.max_outline_entries:
            break
        dest = bookmark.get_dest()
        index = dest.get_index() if dest is not None else None
        title = bookmark.get_title()
        if index is not None and title and title.strip():
            entries.append(_Entry(title=title.strip(), level=bookmark.level, page=index + 1))
    return entries


# --- layout -------------------------------------------------------------------------------------

_Kind = Literal["heading", "paragraph", "item", "code", "table"]


class _Metrics(msgspec.Struct, frozen=True):
    body_size: float  # the most common font size, by characters
    body_height: float  # the most common line height, by characters


class _Block(msgspec.Struct, frozen=True):
    lines: tuple[_Line, ...]
    column_start: bool  # the first block of a column (or page)
    gap_below: float  # space to the next line of its column


class _Piece(msgspec.Struct, frozen=True):
    """A block in reading order, classified."""

    kind: _Kind
    block: _Block
    text: str  # lines joined (an item's without its marker)
    level: int = 0  # a heading's
    ordered: bool = False  # an item's
    number: int = 0
    marker: str = ""  # an item's kind of marker: a bullet character, "step", "." or ")"


class _Layout:
    """Pages -> pieces: running text removed, columns ordered, blocks found and classified."""

    def __init__(self, pages: list[_Page], outline: list[_Entry]) -> None:
        fragments = [line for page in pages for line in page.fragments]
        # The body font is the prose's: a manual that is mostly code, set smaller in a
        # monospaced font, would otherwise make its ordinary lines look like headings.
        prose = [line for line in fragments if not line.mono] or fragments
        self._metrics = _Metrics(
            body_size=_weighted_mode(prose, lambda line: round(line.size, 1)),
            body_height=_weighted_mode(prose, lambda line: round(line.height, 1)),
        )
        self._hyphens = _Hyphens(fragments)
        kept = _without_running_text(pages, self._metrics)
        self._columns = [column for page in kept for column in _reading_order(page, self._metrics)]
        self._marks = _match_outline(self._columns, outline)

    def pieces(self) -> list[_Piece]:
        blocks = [
            block
            for column in self._columns
            for block in _blocks(column, self._marks, self._metrics, self._hyphens)
        ]
        styles = _HeadingStyles(self._metrics, blocks)
        pieces = [self._piece(block, styles) for block in blocks]
        return _merge_continued(pieces, self._hyphens)

    def _piece(self, block: _Block, styles: _HeadingStyles) -> _Piece:
        join = self._hyphens.join
        text = join(line.text for line in block.lines)
        if self._marks:  # the outline names the headings
            mark = self._marks.get(id(block.lines[0]))
            if mark is not None:
                return _Piece(kind="heading", block=block, text=text, level=mark[1])
        else:
            level = styles.level(block, text)
            if level:
                return _Piece(kind="heading", block=block, text=text, level=level)
        if len(block.lines) > 1 and all(line.cells for line in block.lines):
            return _Piece(kind="table", block=block, text=text)
        marker = _list_marker(block.lines[0].text)
        if marker is not None:
            body = join([marker.rest, *(line.text for line in block.lines[1:])])
            return _Piece(
                kind="item",
                block=block,
                text=body,
                ordered=marker.ordered,
                number=marker.number,
                marker=marker.kind,
            )
        if all(line.mono for line in block.lines):
            code = "\n".join(line.text for line in block.lines)
            return _Piece(kind="code", block=block, text=code)
        return _Piece(kind="paragraph", block=block, text=text)


def _weighted_mode(lines: Sequence[_Line], key: Any) -> float:
    """The value of `key` that most characters have."""
    counts: Counter[float] = Counter()
    for line in lines:
        counts[key(line)] += len(line.text)
    return counts.most_common(1)[0][0] if counts else 1.0


# --- running headers, footers and page numbers


def _without_running_text(pages: list[_Page], metrics: _Metrics) -> list[list[_Line]]:
    """The pages' fragments less running headers and footers and page numbers."""
    frames = [_frame(page, metrics) for page in pages]
    drop = {id(line) for frame in frames for line in frame if _PAGE_NUMBER.match(line.text.strip())}
    if len(pages) >= 2:
        drop |= _repeated(frames, min(len(pages), _RUNNING_PAGES))
    return [[line for line in page.fragments if id(line) not in drop] for page in pages]


def _frame(page: _Page, metrics: _Metrics) -> list[_Line]:
    """The fragments that may be a running header or footer: in the outermost rows at the top
    or bottom of the page, set apart from the body by a gap, in the margin band, and not in a
    heading's font size."""
    rows = _rows_of(page.fragments)
    gap = _FRAME_GAP * metrics.body_height
    frame = _outer_rows(rows, gap, lambda outer, inner: _bottom(outer) - _top(inner))
    frame += _outer_rows(rows[::-1], gap, lambda outer, inner: _bottom(inner) - _top(outer))
    large = metrics.body_size * _HEADING_RATIO
    return [line for line in frame if _in_margin(line, page) and line.size < large]


def _outer_rows(
    rows: list[list[_Line]], gap: float, between: Callable[[list[_Line], list[_Line]], float]
) -> list[_Line]:
    """The first rows (at most _FRAME_ROWS) when a gap of `gap` follows them."""
    for count in range(1, min(_FRAME_ROWS, len(rows) - 1) + 1):
        if between(rows[count - 1], rows[count]) >= gap:
            return [line for row in rows[:count] for line in row]
    return []


def _rows_of(lines: Sequence[_Line]) -> list[list[_Line]]:
    """Fragments grouped by row, top row first."""
    rows: list[list[_Line]] = []
    for line in sorted(lines, key=lambda line: -line.y1):
        if rows and _same_row(rows[-1][0], line):
            rows[-1].append(line)
        else:
            rows.append([line])
    return rows


def _in_margin(line: _Line, page: _Page) -> bool:
    return line.y0 >= page.height * (1 - _MARGIN_BAND) or line.y1 <= page.height * _MARGIN_BAND


def _repeated(frames: list[list[_Line]], needed: int) -> set[int]:
    """Frame text that recurs at the same height on `needed` pages, digits ignored."""
    seen: defaultdict[str, list[tuple[float, int, int]]] = defaultdict(list)
    for frame in frames:
        for line in frame:
            key = re.sub(r"\d+", "#", _NORMAL.sub(" ", line.text.casefold()).strip())
            seen[key].append(((line.y0 + line.y1) / 2, line.page, id(line)))
    drop: set[int] = set()
    for occurrences in seen.values():
        occurrences.sort()
        start = 0
        for end in range(len(occurrences)):
            while occurrences[end][0] - occurrences[start][0] > _RUNNING_TOLERANCE:
                start += 1
            window = occurrences[start : end + 1]
            if len({page for _, page, _ in window}) >= needed:
                drop.update(ident for _, _, ident in window)
    return drop


# --- reading order


def _reading_order(fragments: list[_Line], metrics: _Metrics) -> list[list[_Line]]:
    """A page's fragments as columns of rows, in reading order: bands top to bottom (cut at
    tall empty strips), and a band with a gutter read left column first, then right."""
    columns: list[list[_Line]] = []
    work: list[list[_Line]] = [fragments] if fragments else []
    while work:
        group = work.pop()
        bands = _bands(group, metrics)
        if len(bands) > 1:
            work.extend(reversed(bands))
            continue
        gutter = _gutter(group, metrics)
        if gutter is None:
            columns.append(_rows(group))
            continue
        left = [line for line in group if line.x1 <= gutter[0] + 0.5]
        right = [line for line in group if line.x1 > gutter[0] + 0.5]
        work.extend((right, left))
    return columns


def _bands(lines: list[_Line], metrics: _Metrics) -> list[list[_Line]]:
    """Cut at empty horizontal strips; adjacent bands that share a gutter are joined again
    (paragraph breaks that happen to line up across two columns)."""
    ordered = sorted(lines, key=lambda line: -line.y1)
    bands: list[list[_Line]] = []
    bottom = math.inf
    for line in ordered:
        if not bands or line.y1 < bottom - _BAND_GAP * metrics.body_height:
            bands.append([])
            bottom = line.y0
        bands[-1].append(line)
        bottom = min(bottom, line.y0)
    joined: list[list[_Line]] = []
    gutters: list[tuple[float, float] | None] = []
    for band in bands:
        gutter = _gutter(band, metrics)
        shared = _shared(gutters[-1], gutter) if gutters else None
        if shared is not None and _gutter(joined[-1] + band, metrics) is not None:
            joined[-1] += band
            gutters[-1] = shared
        else:
            joined.append(band)
            gutters.append(gutter)
    return joined


def _shared(
    a: tuple[float, float] | None, b: tuple[float, float] | None
) -> tuple[float, float] | None:
    if a is None or b is None or min(a[1], b[1]) <= max(a[0], b[0]):
        return None
    return max(a[0], b[0]), min(a[1], b[1])


def _gutter(lines: list[_Line], metrics: _Metrics) -> tuple[float, float] | None:
    """The empty vertical strip between two columns of prose, if the lines form two."""
    if len(lines) < 2 * _COLUMN_LINES:
        return None
    left, right = min(line.x0 for line in lines), max(line.x1 for line in lines)
    width = right - left
    best: tuple[float, float] | None = None
    spans = sorted((line.x0, line.x1) for line in lines)
    reach = spans[0][1]
    for x0, x1 in spans[1:]:
        centre = (reach + x0) / 2
        wide = x0 - reach >= _GUTTER * metrics.body_height
        inside = left + _GUTTER_ZONE * width <= centre <= right - _GUTTER_ZONE * width
        if wide and inside and (best is None or x0 - reach > best[1] - best[0]):
            best = (reach, x0)
        reach = max(reach, x1)
    if best is None:
        return None
    lo, hi = best
    left_side = [line for line in lines if line.x1 <= lo + 0.5]
    right_side = [line for line in lines if line.x0 >= hi - 0.5]
    if not (_column_like(left_side, lo - left) and _column_like(right_side, right - hi)):
        return None
    side_by_side = min(_top(left_side), _top(right_side)) > max(
        _bottom(left_side), _bottom(right_side)
    )
    return best if side_by_side else None


def _top(lines: list[_Line]) -> float:
    return max(line.y1 for line in lines)


def _bottom(lines: list[_Line]) -> float:
    return min(line.y0 for line in lines)


def _column_like(lines: list[_Line], width: float) -> bool:
    """Enough lines that mostly fill the column's width: prose, not table cells."""
    if len(lines) < _COLUMN_LINES or width <= 0:
        return False
    return statistics.median(line.x1 - line.x0 for line in lines) >= _COLUMN_FILL * width


def _rows(lines: list[_Line]) -> list[_Line]:
    """Top to bottom; fragments on one row (cells, a bullet and its text) become one line."""
    return [_merge_row(sorted(row, key=lambda line: line.x0)) for row in _rows_of(lines)]


def _same_row(a: _Line, b: _Line) -> bool:
    overlap = min(a.y1, b.y1) - max(a.y0, b.y0)
    return overlap >= _SAME_ROW * min(a.height, b.height)


def _merge_row(row: list[_Line]) -> _Line:
    if len(row) == 1:
        return row[0]
    main = max(row, key=lambda line: len(line.text))
    marker = _list_marker(row[0].text + " x")  # a bullet apart from its text is no cell
    # Fragments drawn over one another are runs of one line (glyphs of a fallback font), and
    # a bullet apart from its text is no cell either: only fragments side by side are cells.
    overlapping = any(b.x0 < a.x1 for a, b in itertools.pairwise(row))
    cells = (
        ()
        if overlapping or (marker is not None and marker.rest == "x")
        else tuple((line.x0, line.text) for line in row)
    )
    return _Line(
        text=" ".join(line.text for line in row),
        page=main.page,
        x0=min(line.x0 for line in row),
        y0=min(line.y0 for line in row),
        x1=max(line.x1 for line in row),
        y1=max(line.y1 for line in row),
        size=main.size,
        bold=all(line.bold for line in row),
        mono=all(line.mono for line in row),
        cells=cells,
    )


# --- outline


def _match_outline(columns: list[list[_Line]], outline: list[_Entry]) -> dict[int, tuple[int, int]]:
    """id(line) -> (outline entry, heading level) for the lines that an entry's title names on
    its page; empty unless at least half of the entries are found (else fonts decide)."""
    if not outline:
        return {}
    by_page: defaultdict[int, list[_Line]] = defaultdict(list)
    for column in columns:
        for line in column:
            by_page[line.page].append(line)
    marks: dict[int, tuple[int, int]] = {}
    for index, entry in enumerate(outline):
        lines = by_page.get(entry.page, [])
        found = _find_title(lines, _normal(entry.title), marks)
        for line in found:
            marks[id(line)] = (index, min(entry.level + 1, 6))
    matched = len({index for index, _ in marks.values()})
    return marks if 2 * matched >= len(outline) else {}


def _find_title(lines: list[_Line], key: str, marks: dict[int, tuple[int, int]]) -> list[_Line]:
    """The first unmarked run of up to three lines whose text is the title."""
    if not key:
        return []
    for start in range(len(lines)):
        text = ""
        for end in range(start, min(start + _MAX_HEADING_LINES, len(lines))):
            if id(lines[end]) in marks:
                break
            text += _normal(lines[end].text)
            if text == key:
                return lines[start : end + 1]
            if not key.startswith(text):
                break
    return []


def _normal(text: str) -> str:
    return _NORMAL.sub("", text.replace(_SOFT, "").casefold())


# --- blocks


def _blocks(
    column: list[_Line], marks: dict[int, tuple[int, int]], metrics: _Metrics, hyphens: _Hyphens
) -> list[_Block]:
    """Consecutive lines of a column that belong together (a paragraph, an item, a heading)."""
    if not column:
        return []
    left, right = min(line.x0 for line in column), max(line.x1 for line in column)
    groups: list[list[_Line]] = [[column[0]]]
    for line in column[1:]:
        wrapped = _cell_continued(groups[-1][-1], line, hyphens)
        if wrapped is not None:
            groups[-1][-1] = wrapped
        elif _same_block(groups[-1], line, marks, metrics, left + _SHORT_LINE * (right - left)):
            groups[-1].append(line)
        else:
            groups.append([line])
    blocks = []
    for index, group in enumerate(groups):
        below = groups[index + 1][0].y1 if index + 1 < len(groups) else -math.inf
        blocks.append(
            _Block(lines=tuple(group), column_start=index == 0, gap_below=group[-1].y0 - below)
        )
    return blocks


def _cell_continued(row: _Line, line: _Line, hyphens: _Hyphens) -> _Line | None:
    """A table row with the next line of one of its cells (a wrapped cell) added to it."""
    if not row.cells or line.cells:
        return None
    gap = row.y0 - line.y1
    if not -_SAME_ROW * line.height <= gap <= _PARAGRAPH_GAP * line.height:
        return None
    for index, (x, text) in enumerate(row.cells):
        if abs(x - line.x0) <= _SAME_ROW * line.height:
            cells = (
                *row.cells[:index],
                (x, hyphens.join([text, line.text])),
                *row.cells[index + 1 :],
            )
            return msgspec.structs.replace(row, cells=cells, y0=min(row.y0, line.y0),
                                           text=" ".join(cell for _, cell in cells))  # fmt: skip
    return None


def _same_block(
    block: list[_Line],
    line: _Line,
    marks: dict[int, tuple[int, int]],
    metrics: _Metrics,
    short: float,
) -> bool:
    prev = block[-1]
    height = min(prev.height, line.height)
    gap = prev.y0 - line.y1
    if bool(prev.cells) != bool(line.cells):
        return False
    if prev.cells:  # table rows: header rows are often bold, rows have padding
        return -_SAME_ROW * height <= gap <= _TABLE_ROW_GAP * height
    if marks.get(id(prev)) != marks.get(id(line)):
        return False
    if not _same_style(prev, line) and not _inline_code(block, line):
        return False
    if not -_SAME_ROW * height <= gap <= _PARAGRAPH_GAP * height:
        return False
    if line.x0 > prev.x1 or line.x1 < prev.x0:
        return False
    item = _list_marker(block[0].text) is not None
    ends = _SENTENCE_END.search(prev.text) is not None
    if _list_marker(line.text) is not None and (item or ends):
        return False
    body = abs(line.size - metrics.body_size) <= _SIZE_CLUSTER * metrics.body_size
    if body and not item and line.x0 > prev.x0 + _INDENT * height:
        return False  # a first-line indent starts a paragraph
    return not (ends and prev.x1 < short)  # a short line that ends a sentence ends a paragraph


def _inline_code(block: list[_Line], line: _Line) -> bool:
    """A monospaced line inside a sentence of a prose paragraph (a code span that fills a
    line), or the prose line after it: both stay in the paragraph. A code block starts after a
    sentence or a colon, and a block of code lines never takes a prose line."""
    prev = block[-1]
    # Browsers set monospaced text smaller than prose (13 px against 16 by default).
    if prev.bold != line.bold or abs(prev.size - line.size) > _MONO_SIZE_SPREAD * prev.size:
        return False
    if line.mono and not prev.mono:
        return not _SENTENCE_END.search(prev.text) and not prev.text.rstrip().endswith(":")
    return prev.mono and not line.mono and not all(other.mono for other in block)


def _same_style(a: _Line, b: _Line) -> bool:
    close = abs(a.size - b.size) <= 2 * _SIZE_CLUSTER * max(a.size, b.size)
    return close and a.bold == b.bold and a.mono == b.mono


# --- classification


class _HeadingStyles:
    """Heading levels from font sizes larger than the body's (largest first), then bold text
    at the body size, then numbered titles ("2.3 Cleaning the filter") by their depth."""

    def __init__(self, metrics: _Metrics, blocks: list[_Block]) -> None:
        self._metrics = metrics
        sizes = sorted(
            {
                block.lines[0].size
                for block in blocks
                if _heading_shape(block) and block.lines[0].size >= self._large
            },
            reverse=True,
        )
        self._ranks: list[float] = []
        for size in sizes:
            if not self._ranks or size < self._ranks[-1] * (1 - _SIZE_CLUSTER):
                self._ranks.append(size)

    @property
    def _large(self) -> float:
        return self._metrics.body_size * _HEADING_RATIO

    def level(self, block: _Block, text: str) -> int:
        if not _heading_shape(block):
            return 0
        first = block.lines[0]
        if first.size >= self._large:
            larger = sum(1 for rank in self._ranks if rank > first.size * (1 + _SIZE_CLUSTER))
            return min(6, 1 + larger)
        if _BULLET.match(text) or any(line.cells for line in block.lines):
            return 0
        if block.gap_below < _PARAGRAPH_GAP * self._metrics.body_height:
            return 0
        words = len(text.split())
        if (
            all(line.bold for line in block.lines)
            and first.size >= self._metrics.body_size * _BOLD_RATIO
            and len(block.lines) <= 2
            and words <= _MAX_BOLD_HEADING_WORDS
            and not _SENTENCE_END.search(text)
        ):
            return min(6, len(self._ranks) + 1)
        depth = _numbered_depth(text)
        if depth and len(block.lines) == 1 and words <= _MAX_NUMBERED_WORDS:
            return min(6, depth + (1 if self._ranks else 0))
        return 0


def _heading_shape(block: _Block) -> bool:
    words = sum(len(line.text.split()) for line in block.lines)
    mono = all(line.mono for line in block.lines)
    return len(block.lines) <= _MAX_HEADING_LINES and words <= _MAX_HEADING_WORDS and not mono


def _numbered_depth(text: str) -> int:
    """2 for "2.3 Cleaning the filter", 1 for "2 Installation", 0 for "1. Open the lid"."""
    if text.rstrip().endswith("."):
        return 0
    found = _NUMBERED_TITLE.match(text)
    if found and "." in found.group(1):
        return found.group(1).count(".") + 1
    return 1 if _NUMBERED_SINGLE.match(text) else 0


class _Marker(msgspec.Struct, frozen=True):
    ordered: bool
    number: int
    rest: str  # the text after the marker
    kind: str  # items with another kind of marker at the same indent start another list


def _list_marker(text: str) -> _Marker | None:
    """The list marker a line starts with, if any."""
    bullet = _BULLET.match(text)
    if bullet:
        return _Marker(False, 0, text[bullet.end() :], text[0])
    number = _NUMBER.match(text)
    if number:
        delimiter = number.group(0).strip()[-1]
        return _Marker(True, int(number.group(1)), text[number.end() :], delimiter)
    if _STEP.match(text):
        return _Marker(False, 0, text, "step")  # "Step 3 ..." keeps its label
    return None


class _Hyphens:
    """Lines of a block joined into one, deciding each line-end hyphen from how the document
    itself writes the word elsewhere ("reconfiguration" / "Bluetooth-enabled"), else from
    English words: a hyphen that splits a word is dropped ("installa-" + "tion"), one between
    two words whose joined form is no word is kept ("self-" + "cleaning", "Wi-" + "Fi").
    PDFium marks both kinds alike (code 2), so its mark alone cannot tell."""

    def __init__(self, lines: Iterable[_Line]) -> None:
        texts = (line.text.replace(_SOFT, "-").casefold() for line in lines)
        self._written = frozenset(word for text in texts for word in _WORD.findall(text))

    def join(self, parts: Iterable[str]) -> str:
        out: list[str] = []
        for part in parts:
            part = part.strip()
            if not part:
                continue
            last = out[-1] if out else ""
            if not last:
                out.append(part)
            elif last[-1] in _LINE_END_HYPHENS and last[-2:-1].isalpha():
                hyphen = self._kept(_TAIL.search(last[:-1]), _HEAD.match(part))
                out[-1] = last[:-1] + ("-" if hyphen else "") + part
            elif last[-1] in _DASHES and not last[-2:-1].isspace():
                out[-1] = last + part  # "(2016–" + "present)": an unspaced dash stays unspaced
            else:
                out.append(part)
        return " ".join(out)

    def _kept(self, left_match: re.Match[str] | None, right_match: re.Match[str] | None) -> bool:
        if left_match is None or right_match is None:
            return True
        left, right = left_match.group(0), right_match.group(0)
        joined, hyphenated = (left + right).casefold(), f"{left}-{right}".casefold()
        if hyphenated in self._written:
            return True
        if joined in self._written:
            return False
        if right[0].isupper():
            return True
        words = english_words()
        if joined in words:
            return False
        return right.casefold() in words and (left[0].isupper() or left.casefold() in words)


def _merge_continued(pieces: list[_Piece], hyphens: _Hyphens) -> list[_Piece]:
    """A paragraph that goes on at the top of the next column or page joins the block it
    continues (no sentence end before the break, same font)."""
    merged: list[_Piece] = []
    for piece in pieces:
        if merged and _adjacent_code(merged[-1], piece):
            block = msgspec.structs.replace(
                merged[-1].block, lines=merged[-1].block.lines + piece.block.lines
            )
            merged[-1] = msgspec.structs.replace(
                merged[-1], block=block, text=merged[-1].text + "\n" + piece.text
            )
        elif merged and _continues(merged[-1], piece):
            before = merged[-1]
            block = msgspec.structs.replace(
                before.block, lines=before.block.lines + piece.block.lines
            )
            merged[-1] = msgspec.structs.replace(
                before, block=block, text=hyphens.join([before.text, piece.text])
            )
        else:
            merged.append(piece)
    return merged


def _adjacent_code(before: _Piece, piece: _Piece) -> bool:
    if before.kind != "code" or piece.kind != "code":
        return False
    last, first = before.block.lines[-1], piece.block.lines[0]
    return first.page == last.page and 0 <= last.y0 - first.y1 <= _CODE_GAP * last.height


def _continues(before: _Piece, piece: _Piece) -> bool:
    if not piece.block.column_start or piece.kind != "paragraph":
        return False
    if before.kind not in ("paragraph", "item") or _SENTENCE_END.search(before.text):
        return False
    last, first = before.block.lines[-1], piece.block.lines[0]
    jumped = first.page > last.page or first.y1 > last.y0  # next page, or up to a new column
    return jumped and _same_style(last, first)


# --- writing


def _write(pieces: list[_Piece], writer: MarkdownWriter) -> None:
    index = 0
    while index < len(pieces):
        piece = pieces[index]
        if piece.kind == "item":
            group = _list_group(pieces, index)
            writer.add_list(_items(group), _where(group))
            index += len(group)
            continue
        if piece.kind == "heading":
            writer.add(heading_line(piece.level, _visible(piece.text)), _where([piece]))
        elif piece.kind == "code":
            writer.add(render_code(piece.text), _where([piece]))
        elif piece.kind == "table":
            writer.add(render_table(_table_rows(piece.block.lines)), _where([piece]))
        else:
            writer.add(escape_line(_visible(piece.text)), _where([piece]))
        index += 1


def _list_group(pieces: list[_Piece], start: int) -> list[_Piece]:
    """Consecutive items of one list: another list starts with another kind of marker at the
    first item's indent, or when the numbers start again at 1."""
    first = pieces[start]
    group = [first]
    for piece in pieces[start + 1 :]:
        if piece.kind != "item":
            break
        line = piece.block.lines[0]
        level = abs(line.x0 - first.block.lines[0].x0) < line.height  # the first item's level
        if level and (piece.marker != first.marker or (piece.ordered and piece.number == 1)):
            break
        group.append(piece)
    return group


def _items(group: list[_Piece]) -> list[ListItem]:
    """Nesting from indentation: an item further right than the one above is nested in it."""
    items: list[ListItem] = []
    indents: list[float] = []
    for piece in group:
        x0 = piece.block.lines[0].x0
        step = piece.block.lines[0].height
        while indents and x0 < indents[-1] - step:
            indents.pop()
        if not indents or x0 > indents[-1] + step:
            indents.append(x0)
        text = escape_line(_visible(piece.text))
        items.append(
            ListItem(text=text, depth=len(indents) - 1, ordered=piece.ordered, number=piece.number)
        )
    return items


def _table_rows(lines: Sequence[_Line]) -> list[list[str]]:
    """Cells into the columns of the row with the most cells, by their left edges."""
    starts = [x for x, _ in max((line.cells for line in lines), key=len)]
    rows: list[list[str]] = []
    for line in lines:
        row = [""] * len(starts)
        tolerance = line.height
        for x, text in line.cells:
            column = max((i for i, start in enumerate(starts) if start <= x + tolerance), default=0)
            row[column] = f"{row[column]} {text}".strip()
        rows.append([_visible(cell) for cell in row])
    return rows


def _where(pieces: Sequence[_Piece]) -> Where:
    lines = [line for piece in pieces for line in piece.block.lines]
    first = lines[0].page
    on_first = [line for line in lines if line.page == first]
    bbox = (
        round(min(line.x0 for line in on_first), 2),
        round(min(line.y0 for line in on_first), 2),
        round(max(line.x1 for line in on_first), 2),
        round(max(line.y1 for line in on_first), 2),
    )
    heads = tuple(next(line.text for line in lines if line.page == page)
                  for page in sorted({line.page for line in lines}) if page != first)  # fmt: skip
    return Where(page_first=first, page_last=max(line.page for line in lines), bbox=bbox,
                 page_heads=heads)  # fmt: skip


def _visible(text: str) -> str:
    """A soft hyphen left at the very end was printed as a hyphen."""
    return text.replace(_SOFT, "-")
