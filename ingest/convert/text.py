"""Plain text (.txt) and Markdown (.md) in, and the Markdown writing every converter shares.

A converter must write Markdown whose top-level blocks are exactly the blocks it meant: a line of
plain text that starts with "# ", "- " or "1." would otherwise become a heading or a list, and a
"|" could start a table. `escape_inline` and `escape_line` neutralise that with backslashes (the
reader keeps them in the block text, so quotes point at what the file really says), and
`MarkdownWriter` joins the blocks with blank lines and records one `Location` per block.

Plain text keeps its lines and becomes paragraphs at blank lines; the only structure guessed is a
setext heading (a line underlined with ===== or -----), which becomes a # or ## heading.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import ClassVar

import msgspec

from ingest.convert.base import ConversionError, Converted, ConvertLimits, Location

__all__ = [
    "ListItem",
    "MarkdownConverter",
    "MarkdownWriter",
    "TextConverter",
    "Where",
    "decode_utf8",
    "escape_inline",
    "escape_line",
    "escape_start",
    "heading_line",
    "one_line",
    "quote",
    "render_code",
    "render_list",
    "render_table",
    "text_like",
]

# --- escaping -----------------------------------------------------------------------------------

# Inline: what would turn into emphasis, code, a link, raw HTML, an entity or a table cell border.
_INLINE = re.compile(
    r"\\(?=[!-/:-@\[-`{-~])"  # a backslash that would escape the next character
    r"|[`*|]"
    r"|(?<![^\W_])_|_(?![^\W_])"  # "_" unless between letters or digits (snake_case stays)
    r"|\](?=[(\[])"  # "](" or "][" would close a link
    r"|<(?=[A-Za-z/!?])"  # raw HTML or an autolink
    r"|&(?=#?[A-Za-z0-9]+;)"  # an entity reference
)
# Line start (after the leading blanks are gone): headings, quotes, bullets, fences, thematic
# breaks and setext underlines of "-" or "=", and link reference definitions. "*" and "_" are
# escaped inline already, numbers by _ORDERED_START.
_LINE_START = re.compile(
    r"^(?:#{1,6}(?=[ \t]|$)|>|[-+](?=[ \t]|$)|~~~|=+[ \t]*$|-+[ \t]*$|\[(?=[^\]]*\]:))"
)
_ORDERED_START = re.compile(r"^(\d{1,9})([.)])(?=[ \t]|$)")
_CLOSING_HASHES = re.compile(r"([ \t])(#+)[ \t]*$")
_SPACES = re.compile(r"[ \t\f\v\r\n\u2028\u2029]+")
_INVISIBLE = re.compile("[\u00ad\u200b\ufeff]")  # soft hyphen, zero-width space, stray BOM


def escape_inline(text: str) -> str:
    """Backslash what Markdown would read as inline markup; the words stay as they are."""
    return _INLINE.sub(lambda m: "\\" + m.group(0), text)


def escape_line(line: str) -> str:
    """One line of prose as Markdown text that cannot start a block of its own."""
    return escape_start(escape_inline(_INVISIBLE.sub("", line).strip()))


def escape_start(line: str) -> str:
    """Line-start escaping of a line whose inline markup is escaped already."""
    numbered = _ORDERED_START.match(line)
    if numbered:
        return f"{numbered.group(1)}\\{line[numbered.end(1) :]}"
    if _LINE_START.match(line):
        return "\\" + line
    return line


def one_line(text: str) -> str:
    """Whitespace runs (line breaks too) as one space, invisible characters removed."""
    return _SPACES.sub(" ", _INVISIBLE.sub("", text)).strip()


def heading_line(level: int, text: str) -> str:
    """An ATX heading; "" when there is no text (an empty heading is no heading)."""
    body = escape_inline(one_line(text))
    if not body:
        return ""
    body = _CLOSING_HASHES.sub(lambda m: m.group(1) + "\\" + m.group(2), body)
    return f"{'#' * max(1, min(level, 6))} {body}"


# --- blocks -------------------------------------------------------------------------------------


class ListItem(msgspec.Struct, frozen=True):
    """One item; `text` is Markdown already (escaped), possibly several lines."""

    text: str
    depth: int = 0
    ordered: bool = False
    number: int = 1


def render_list(items: Sequence[ListItem], *, alternate: bool = False) -> str:
    """Items as one Markdown list, nested by depth. `alternate` switches to "*" bullets and ")"
    numbers, so that a list written right after another one stays a block of its own."""
    lines: list[str] = []
    indents: list[int] = []  # content indent of each open depth
    for index, item in enumerate(items):
        depth = min(item.depth, len(indents))
        del indents[depth:]
        base = indents[-1] if indents else 0
        nested_first = depth > 0 and (index == 0 or items[index - 1].depth < item.depth)
        marker = _marker(item, alternate, 1 if nested_first else item.number)
        indents.append(base + len(marker) + 1)
        first, *rest = item.text.split("\n")
        lines.append(" " * base + f"{marker} {first}".rstrip())
        pad = " " * indents[-1]
        lines.extend(pad + line if line.strip() else "" for line in rest)
    return "\n".join(lines)


def _marker(item: ListItem, alternate: bool, number: int) -> str:
    if item.ordered:
        return f"{max(0, number)}{')' if alternate else '.'}"
    return "*" if alternate else "-"


def render_table(rows: Sequence[Sequence[str]]) -> str:
    """A pipe table, the first row as header; cells are plain text (escaped here)."""
    width = max((len(row) for row in rows), default=0)
    if width == 0:
        return ""
    lines = []
    for index, row in enumerate(rows):
        cells = [escape_inline(one_line(cell)) for cell in row]
        cells += [""] * (width - len(cells))
        lines.append("| " + " | ".join(cells) + " |")
        if index == 0:
            lines.append("|" + " --- |" * width)
    return "\n".join(lines)


def render_code(code: str, info: str = "") -> str:
    """A fenced code block, the fence longer than any backtick run inside."""
    longest = max((len(run) for run in re.findall(r"`+", code)), default=0)
    fence = "`" * max(3, longest + 1)
    body = code.strip("\n")
    return f"{fence}{one_line(info).replace('`', '')}\n{body}\n{fence}" if body else ""


def quote(markdown: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in markdown.split("\n"))


# --- writer -------------------------------------------------------------------------------------


class Where(msgspec.Struct, frozen=True, kw_only=True):
    """Where a block was printed in the original (the writer makes a Location of it).
    `page_heads`: the first words printed on each page after page_first, found in the block to
    record where those pages begin."""

    page_first: int | None = None
    page_last: int | None = None
    bbox: tuple[float, float, float, float] | None = None
    anchor: str | None = None
    page_heads: tuple[str, ...] = ()


class MarkdownWriter:
    """Blocks joined by blank lines, each with its Location; stops at limits.max_chars."""

    def __init__(self, limits: ConvertLimits) -> None:
        self._limits = limits
        self._parts: list[str] = []
        self._length = 0
        self._locations: list[Location] = []
        self.last_list: bool | None = None  # ordered-ness of the last block if it was a list
        self.last_alternate = False

    def add(self, block: str, where: Where | None = None) -> None:
        block = block.strip("\n")
        if not block.strip():
            return
        if self._parts:
            self._parts.append("\n\n")
            self._length += 2
        start = self._length
        self._parts.append(block)
        self._length += len(block)
        if self._length > self._limits.max_chars:
            raise ConversionError(
                f"the converted text is longer than the limit of {self._limits.max_chars:,} "
                "characters"
            )
        where = where or Where()
        self._locations.append(
            Location(
                start=start,
                end=self._length,
                page_first=where.page_first,
                page_last=where.page_last,
                bbox=where.bbox,
                anchor=where.anchor,
                page_starts=_page_starts(block, where.page_heads),
            )
        )
        self.last_list = None

    def add_list(self, items: Sequence[ListItem], where: Where | None = None) -> None:
        """A list; written with the other markers when it follows a list of the same kind."""
        if not items:
            return
        ordered = items[0].ordered
        alternate = self.last_list == ordered and not self.last_alternate
        self.add(render_list(items, alternate=alternate), where)
        self.last_list, self.last_alternate = ordered, alternate

    @property
    def locations(self) -> tuple[Location, ...]:
        return tuple(self._locations)

    def text(self) -> str:
        return "".join(self._parts) + "\n" if self._parts else ""


def _page_starts(block: str, heads: Sequence[str]) -> tuple[int, ...]:
    """Where each head (a page's first printed words) begins in the block, in order; a head not
    found (rewritten by escaping) starts where the one before it did."""
    starts: list[int] = []
    at = 0
    for head in heads:
        found = block.find(head[:_PAGE_HEAD_CHARS].strip(), at) if head.strip() else -1
        at = found if found >= 0 else at
        starts.append(at)
    return tuple(starts)


_PAGE_HEAD_CHARS = 24  # enough to find a line's start in its block, short of any hyphenation


# --- decoding and sniffing ----------------------------------------------------------------------

_BINARY_MAGIC = (b"%PDF-", b"PK\x03\x04", b"\xd0\xcf\x11\xe0")


def text_like(head: bytes) -> bool:
    """No NUL byte, no binary file signature and hardly any control bytes in the first bytes
    (an image or an archive has them early; text has tabs and line breaks only)."""
    if b"\x00" in head or head.lstrip().startswith(_BINARY_MAGIC):
        return False
    controls = sum(1 for byte in head if byte < 0x20 and byte not in b"\t\n\r\f")
    return controls <= len(head) * _MAX_CONTROL_SHARE


_MAX_CONTROL_SHARE = 0.01


def decode_utf8(data: bytes, kind: str) -> str:
    """UTF-8 (a BOM is dropped); a NUL byte or an invalid sequence is an error naming its byte
    offset, since a file that is not text would become garbage passages."""
    nul = data.find(b"\x00")
    if nul >= 0:
        raise ConversionError(f"{kind} has a NUL byte at byte offset {nul}: it is not a text file")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ConversionError(
            f"{kind} is not valid UTF-8: {error.reason} at byte offset {error.start}"
        ) from error


def _check_length(text: str, limits: ConvertLimits) -> None:
    if len(text) > limits.max_chars:
        raise ConversionError(
            f"the text has {len(text):,} characters, more than the limit of {limits.max_chars:,}"
        )


# --- converters ---------------------------------------------------------------------------------


class MarkdownConverter:
    """Markdown is the target format: the text as it is."""

    media_type: ClassVar[str] = "text/markdown"
    extensions: ClassVar[tuple[str, ...]] = (".md", ".markdown")

    def sniff(self, head: bytes) -> bool:
        return text_like(head)

    def convert(self, data: bytes, name: str, limits: ConvertLimits) -> Converted:
        text = decode_utf8(data, "the Markdown file")
        _check_length(text, limits)
        return Converted(text=text, media_type=self.media_type)


_UNDERLINE = re.compile(r"^[ \t]{0,3}(=+|-+)[ \t]*$")
_MIN_UNDERLINE = 3  # "--" or "=" alone is punctuation, not an underline
_MAX_TITLE_CHARS = 200


class TextConverter:
    """Plain text: paragraphs at blank lines, lines kept; setext-underlined lines are headings."""

    media_type: ClassVar[str] = "text/plain"
    extensions: ClassVar[tuple[str, ...]] = (".txt",)

    def sniff(self, head: bytes) -> bool:
        return text_like(head)

    def convert(self, data: bytes, name: str, limits: ConvertLimits) -> Converted:
        text = decode_utf8(data, "the text file")
        _check_length(text, limits)
        writer = MarkdownWriter(limits)
        for paragraph in _paragraphs(text):
            _write_paragraph(writer, paragraph)
        return Converted(text=writer.text(), media_type=self.media_type, locations=writer.locations)


def _paragraphs(text: str) -> list[list[str]]:
    """Runs of non-blank lines."""
    runs: list[list[str]] = [[]]
    for line in re.split(r"\r\n|\r|\n", text):
        if line.strip():
            runs[-1].append(line)
        elif runs[-1]:
            runs.append([])
    return [run for run in runs if run]


def _write_paragraph(writer: MarkdownWriter, lines: list[str]) -> None:
    """Lines as a paragraph, except a line followed by an underline, which is a heading."""
    pending: list[str] = []
    index = 0
    while index < len(lines):
        level = _underline_level(lines, index)
        if level:
            writer.add("\n".join(escape_line(line) for line in pending))
            writer.add(heading_line(level, lines[index]))
            pending = []
            index += 2
            continue
        pending.append(lines[index])
        index += 1
    writer.add("\n".join(escape_line(line) for line in pending))


def _underline_level(lines: list[str], index: int) -> int:
    """1 or 2 when lines[index] is a title underlined by the next line, else 0."""
    if index + 1 >= len(lines) or _UNDERLINE.match(lines[index]):
        return 0
    underline = _UNDERLINE.match(lines[index + 1])
    title = lines[index].strip()
    if not underline or len(underline.group(1)) < _MIN_UNDERLINE:
        return 0
    if not title or len(title) > _MAX_TITLE_CHARS:
        return 0
    return 1 if underline.group(1)[0] == "=" else 2
