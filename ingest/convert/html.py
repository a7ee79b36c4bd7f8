"""HTML (.html, .htm) -> Markdown: headings, paragraphs, lists, tables, code and quotes.

Parser: beautifulsoup4 (MIT) on the standard library's html.parser. It builds the tree without
recursion (100,000 nested <div> parse in about 2 s), keeps every text node and needs no
compiled code. lxml was the other candidate: faster, but libxml2 stops at 256 levels of nesting
unless told to accept "huge" trees, and drops what lies deeper.

The walk over the tree is iterative (an explicit stack), so nesting depth cannot overflow the
Python stack; elements deeper than `limits.max_html_depth` only add their text to the block
around them. Only the page's content is kept: <main> when there is one, else its <article>
elements, else <body>; navigation, forms, page headers and footers, scripts and hidden elements
are left out, and a warning tells when what is left is a small share of the page's text.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar, NamedTuple

from bs4 import BeautifulSoup
from bs4.element import (
    CData,
    Comment,
    Declaration,
    Doctype,
    NavigableString,
    PageElement,
    ProcessingInstruction,
    Tag,
)

from ingest.convert.base import ConversionError, Converted, ConvertLimits
from ingest.convert.text import (
    ListItem,
    MarkdownWriter,
    Where,
    escape_inline,
    escape_line,
    escape_start,
    heading_line,
    one_line,
    quote,
    render_code,
    render_list,
    render_table,
    text_like,
)

__all__ = ["HtmlConverter", "decode_html"]

# Not seen by a reader: skipped, and not counted as the page's text either.
_INVISIBLE = frozenset({"script", "style", "noscript", "template", "head", "title", "meta"})
# Seen on the page but not content: counted as the page's text, not kept.
_CHROME = frozenset({"nav", "aside", "form", "button", "iframe", "svg", "select", "dialog"})
# Page-level header and footer; inside <main> or <article> they hold the article's own title.
_PAGE_FRAME = frozenset({"header", "footer"})
_CONTENT_ROOTS = ("main", "article")
_HEADINGS = {f"h{level}": level for level in range(1, 7)}
_BLOCKS = frozenset(
    {
        "p", "div", "section", "article", "main", "body", "html", "address", "figure",
        "figcaption", "dl", "dt", "dd", "details", "summary", "hr", "center", "fieldset",
        "legend", "hgroup", "header", "footer", "tbody", "thead", "tfoot", "li", "ul", "ol",
        "table", "tr", "td", "th", "caption", "blockquote", "pre",
    }
)  # fmt: skip
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)
_SKIPPED_STRINGS = (Comment, Declaration, Doctype, ProcessingInstruction, CData)
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
_LINK_SCHEMES = frozenset({"http", "https", "mailto"})
_WHITESPACE = re.compile(r"[ \t\n\r\f]+")
_BREAK = "\n"  # a <br> in an inline buffer (text there never holds a line break)


class HtmlConverter:
    media_type: ClassVar[str] = "text/html"
    extensions: ClassVar[tuple[str, ...]] = (".html", ".htm")

    def sniff(self, head: bytes) -> bool:
        """Any text: a page without a single tag is still a page; UTF-16 has a BOM."""
        return text_like(head) or head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE))

    def convert(self, data: bytes, name: str, limits: ConvertLimits) -> Converted:
        soup = BeautifulSoup(decode_html(data), "html.parser")
        builder = _Builder(limits)
        _walk(soup, builder, limits)
        writer = MarkdownWriter(limits)
        for block in builder.finish():
            if block.ordered is None:
                writer.add(block.text, Where(anchor=block.anchor))
            else:
                writer.add_list(block.items, Where(anchor=block.anchor))
        return Converted(
            text=writer.text(),
            media_type=self.media_type,
            locations=writer.locations,
            warnings=builder.warnings(limits),
        )


# --- decoding -----------------------------------------------------------------------------------

_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9._:-]+)""", re.I)
_XML_ENCODING = re.compile(rb"""^<\?xml[^>]+encoding\s*=\s*["']([A-Za-z0-9._-]+)""")
_PRESCAN_BYTES = 4096
# As browsers do (WHATWG encoding standard): these labels mean windows-1252.
_WINDOWS_1252 = frozenset({"iso-8859-1", "latin-1", "latin1", "ascii", "us-ascii", "l1"})


def decode_html(data: bytes) -> str:
    """By BOM, else the declared charset, else UTF-8; undecodable bytes become U+FFFD."""
    if data.startswith(codecs.BOM_UTF8):
        return data[3:].decode("utf-8", errors="replace")
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return data.decode("utf-16", errors="replace")
    return data.decode(_declared_charset(data[:_PRESCAN_BYTES]), errors="replace")


def _declared_charset(head: bytes) -> str:
    found = _META_CHARSET.search(head) or _XML_ENCODING.search(head.lstrip())
    if not found:
        return "utf-8"
    label = found.group(1).decode("ascii").lower()
    if label in _WINDOWS_1252:
        return "cp1252"
    try:
        name = codecs.lookup(label).name
    except LookupError:
        return "utf-8"
    # A page that declares UTF-16 in a tag readable as ASCII is not UTF-16.
    return "utf-8" if name.startswith("utf-16") else name


# --- the walk -----------------------------------------------------------------------------------


class _Where(NamedTuple):
    depth: int
    keep: bool  # inside the kept content (main, articles or body) and not page chrome
    in_content: bool  # inside <main> or <article>


class _Close(NamedTuple):
    tag: Tag


def _walk(soup: BeautifulSoup, builder: _Builder, limits: ConvertLimits) -> None:
    """Depth first with an explicit stack: open an element, its children, close it."""
    roots = _content_roots(soup)
    stack: list[tuple[PageElement, _Where] | _Close] = [
        (soup, _Where(depth=0, keep=not roots, in_content=False))
    ]
    while stack:
        item = stack.pop()
        if isinstance(item, _Close):
            builder.close(item.tag)
            continue
        node, where = item
        if isinstance(node, NavigableString):
            if not isinstance(node, _SKIPPED_STRINGS):
                builder.text(str(node), keep=where.keep)
            continue
        if not isinstance(node, Tag) or _invisible(node):
            continue
        builder.note_anchor(node)
        inner = _inner(node, where, roots)
        if inner.keep and where.depth >= limits.max_html_depth:
            builder.separate(node)  # too deep to open: its text joins the block around it
        elif inner.keep and builder.open(node):
            stack.append(_Close(node))
        stack.extend((child, inner) for child in reversed(node.contents))


def _content_roots(soup: BeautifulSoup) -> frozenset[int]:
    """Python ids of the elements whose content is kept; empty: keep the whole body."""
    for name in _CONTENT_ROOTS:
        found = soup.find_all(name)
        if found:
            return frozenset(id(tag) for tag in found)
    return frozenset()


def _inner(node: Tag, where: _Where, roots: frozenset[int]) -> _Where:
    name = node.name
    in_content = where.in_content or name in _CONTENT_ROOTS
    keep = where.keep or id(node) in roots
    if name in _CHROME or (name in _PAGE_FRAME and not in_content):
        keep = False
    return _Where(depth=where.depth + 1, keep=keep, in_content=in_content)


def _invisible(node: Tag) -> bool:
    if node.name in _INVISIBLE or node.has_attr("hidden"):
        return True
    if str(node.get("aria-hidden", "")).strip().lower() == "true":
        return True
    return bool(_HIDDEN_STYLE.search(str(node.get("style", ""))))


# --- Markdown from open / text / close events ---------------------------------------------------


@dataclass(slots=True)
class _Out:
    """A finished block: Markdown text, or list items not rendered yet (so the writer can pick
    markers that keep two adjacent lists apart)."""

    text: str
    anchor: str | None
    ordered: bool | None = None  # set for a list
    items: tuple[ListItem, ...] = ()


@dataclass(slots=True)
class _Context:
    """An open element that collects content. Flows (the page, li, blockquote) hold blocks and
    a pending paragraph of escaped inline text; flat contexts (heading, cell, pre, caption) hold
    raw text; lists hold items, tables rows, rows cells."""

    kind: str
    tag: Tag | None
    anchor: str | None = None
    anchored: bool = False
    blocks: list[_Out] = field(default_factory=list)
    inline: list[str] = field(default_factory=list)
    inline_anchor: str | None = None
    inline_anchored: bool = False
    flushes: int = 0  # bumped when `inline` is emptied, so a stale link start is not used
    items: list[ListItem] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)
    cells: list[str] = field(default_factory=list)
    ordered: bool = False
    number: int = 1
    level: int = 0
    info: str = ""


class _Link(NamedTuple):
    tag: Tag
    context: _Context
    start: int
    flushes: int
    href: str


_FLOWS = frozenset({"flow", "item", "quote"})
_FLAT = frozenset({"heading", "cell", "pre", "caption"})
_Finish = Callable[["_Builder", _Context, _Context], None]


class _Builder:
    def __init__(self, limits: ConvertLimits) -> None:
        self._root = _Context(kind="flow", tag=None, anchored=True)
        self._stack = [self._root]
        self._links: list[_Link] = []
        self._anchor: str | None = None  # the last id (or <a name>) seen
        self._kept = 0  # non-space characters kept
        self._seen = 0  # non-space characters a reader sees on the page
        self._max_chars = limits.max_chars

    def finish(self) -> list[_Out]:
        self._flush(self._root)
        return self._root.blocks

    def warnings(self, limits: ConvertLimits) -> tuple[str, ...]:
        if self._seen == 0 or self._kept >= limits.min_text_share * self._seen:
            return ()
        share = round(100 * self._kept / self._seen)
        return (f"mostly navigation: kept {share}% of the page's text",)

    # --- events

    def note_anchor(self, tag: Tag) -> None:
        ident = tag.get("id") or (tag.get("name") if tag.name == "a" else None)
        if ident and str(ident).strip():
            self._anchor = str(ident).strip()

    def separate(self, tag: Tag) -> None:
        """A block element that is not opened still keeps its text apart from the next."""
        if tag.name in _BLOCKS or tag.name in _HEADINGS or tag.name == "br":
            self._flow(self._stack[-1]).inline.append(" ")

    def open(self, tag: Tag) -> bool:
        """An element starts; True when it wants its close event."""
        top = self._stack[-1]
        name = tag.name
        if top.kind in _FLAT:
            return self._open_in_flat(top, name)
        if name == "br":
            self._flow(top).inline.append(_BREAK)
            return False
        if name == "a":
            return self._open_link(top, tag)
        context = self._context_for(top, tag)
        if context is not None:
            if top.kind in _FLOWS:
                self._flush(top)
            self._stack.append(context)
            return True
        if name in _BLOCKS:  # p, div, a stray li or td: a paragraph boundary
            self._flush(self._flow(top))
            return True
        return False

    def text(self, text: str, *, keep: bool) -> None:
        visible = len(_WHITESPACE.sub("", text))
        self._seen += visible
        if not keep or (visible == 0 and self._stack[-1].kind in ("list", "table", "row")):
            return
        top = self._stack[-1]
        if top.kind == "pre":
            top.inline.append(text)
        elif top.kind in _FLAT:
            top.inline.append(_WHITESPACE.sub(" ", text))
        else:
            top = self._flow(top)
            top.inline.append(escape_inline(_WHITESPACE.sub(" ", text)))
        if visible:
            self._kept += visible
            if self._kept > self._max_chars:
                raise ConversionError(
                    f"the page has more than the limit of {self._max_chars:,} characters of text"
                )
            self._anchor_contexts(top)

    def close(self, tag: Tag) -> None:
        top = self._stack[-1]
        if self._links and self._links[-1].tag is tag:
            self._close_link(self._links.pop())
            return
        if top.tag is not tag:  # a boundary element (p, div, ...) ends its paragraph
            self._flush(self._flow(top))
            return
        self._stack.pop()
        _FINISH[top.kind](self, top, self._stack[-1])

    # --- opening

    def _context_for(self, top: _Context, tag: Tag) -> _Context | None:
        name = tag.name
        if name in _HEADINGS:
            return _Context(kind="heading", tag=tag, level=_HEADINGS[name])
        if name in ("ul", "ol"):
            return _Context(kind="list", tag=tag, ordered=name == "ol", number=_start(tag))
        if name == "li" and top.kind == "list":
            return _Context(kind="item", tag=tag)
        if name == "blockquote":
            return _Context(kind="quote", tag=tag)
        if name == "pre":
            return _Context(kind="pre", tag=tag, info=_language(tag))
        if name == "table":
            return _Context(kind="table", tag=tag)
        if top.kind == "table" and name in ("tr", "caption"):
            return _Context(kind="row" if name == "tr" else "caption", tag=tag)
        if top.kind == "row" and name in ("td", "th"):  # the first row is the header
            return _Context(kind="cell", tag=tag)
        return None

    def _open_in_flat(self, top: _Context, name: str) -> bool:
        """Inside a heading, cell, caption or pre every element is text: blocks are spaces."""
        if name == "br":
            top.inline.append("\n" if top.kind == "pre" else " ")
        elif name in _BLOCKS and top.kind != "pre":
            top.inline.append(" ")
        return False

    def _open_link(self, top: _Context, tag: Tag) -> bool:
        href = _link_target(str(tag.get("href", "")))
        if href is None:
            return False
        flow = self._flow(top)
        self._links.append(_Link(tag, flow, len(flow.inline), flow.flushes, href))
        return True

    def _close_link(self, link: _Link) -> None:
        context = link.context
        if context.flushes != link.flushes:
            return  # the link spanned a block boundary: its text stays plain
        label = "".join(part for part in context.inline[link.start :] if part != _BREAK).strip()
        if label:
            label = re.sub(r"(?<!\\)([\[\]])", r"\\\1", label)
            context.inline[link.start :] = [f"[{label}]({link.href})"]

    def _flow(self, top: _Context) -> _Context:
        """Where inline text goes: the top context, or for text directly inside a list, table
        or row (broken HTML) the nearest flow below it, so the text is not lost."""
        if top.kind in _FLOWS or top.kind in _FLAT:
            return top
        return next(c for c in reversed(self._stack) if c.kind in _FLOWS)

    def _anchor_contexts(self, target: _Context) -> None:
        """A block takes the anchor in force at its first visible text, so a heading's own id
        (or an id just inside it) wins over an earlier one."""
        for context in reversed(self._stack):
            if context.anchored:
                break
            context.anchor, context.anchored = self._anchor, True
        if not target.inline_anchored:
            target.inline_anchor, target.inline_anchored = self._anchor, True

    # --- finishing

    def _flush(self, context: _Context) -> None:
        """A flow's pending inline text becomes a paragraph block."""
        if context.kind not in _FLOWS or not context.inline:
            return
        text = _paragraph(context.inline)
        if text:
            context.blocks.append(_Out(text=text, anchor=context.inline_anchor))
        context.inline, context.inline_anchored = [], False
        context.flushes += 1

    def _append(self, block: _Out) -> None:
        """A finished block into the nearest open flow."""
        flow = self._flow(self._stack[-1])
        self._flush(flow)
        flow.blocks.append(block)

    def _finish_heading(self, context: _Context, parent: _Context) -> None:
        text = heading_line(context.level, "".join(context.inline))
        if text:
            self._append(_Out(text=text, anchor=context.anchor))

    def _finish_item(self, context: _Context, parent: _Context) -> None:
        self._flush(context)
        text = "\n".join(_rendered(block) for block in context.blocks)
        if text.strip():
            item = ListItem(text=text, ordered=parent.ordered, number=parent.number)
            parent.items.append(item)
            parent.number += 1

    def _finish_list(self, context: _Context, parent: _Context) -> None:
        if not context.items:
            return
        items = tuple(context.items)
        if parent.kind == "item":  # rendered into the item; a nested list starts at 1
            self._append(_Out(text=render_list(_renumbered(items)), anchor=context.anchor))
        else:
            self._append(
                _Out(text="", anchor=context.anchor, ordered=items[0].ordered, items=items)
            )

    def _finish_quote(self, context: _Context, parent: _Context) -> None:
        self._flush(context)
        inner = "\n\n".join(_rendered(block) for block in context.blocks)
        if inner.strip():
            self._append(_Out(text=quote(inner), anchor=context.anchor))

    def _finish_cell(self, context: _Context, parent: _Context) -> None:
        parent.cells.append("".join(context.inline))

    def _finish_row(self, context: _Context, parent: _Context) -> None:
        if context.cells:
            parent.rows.append(context.cells)

    def _finish_caption(self, context: _Context, parent: _Context) -> None:
        parent.info = one_line("".join(context.inline))

    def _finish_table(self, context: _Context, parent: _Context) -> None:
        if context.info:
            self._append(_Out(text=escape_line(context.info), anchor=context.anchor))
        if any(cell.strip() for row in context.rows for cell in row):
            self._append(_Out(text=render_table(context.rows), anchor=context.anchor))

    def _finish_pre(self, context: _Context, parent: _Context) -> None:
        text = render_code("".join(context.inline), context.info)
        if text:
            self._append(_Out(text=text, anchor=context.anchor))


_FINISH: dict[str, _Finish] = {
    "heading": _Builder._finish_heading,
    "item": _Builder._finish_item,
    "list": _Builder._finish_list,
    "quote": _Builder._finish_quote,
    "cell": _Builder._finish_cell,
    "row": _Builder._finish_row,
    "caption": _Builder._finish_caption,
    "table": _Builder._finish_table,
    "pre": _Builder._finish_pre,
}


def _rendered(block: _Out) -> str:
    return block.text if block.ordered is None else render_list(block.items)


def _paragraph(inline: list[str]) -> str:
    """Inline pieces as paragraph lines: a <br> is a hard break, spaces collapse."""
    lines = (one_line(line) for line in "".join(inline).split(_BREAK))
    return "  \n".join(escape_start(line) for line in lines if line)


def _renumbered(items: tuple[ListItem, ...]) -> tuple[ListItem, ...]:
    return tuple(
        ListItem(text=item.text, depth=item.depth, ordered=item.ordered, number=index + 1)
        for index, item in enumerate(items)
    )


def _start(tag: Tag) -> int:
    try:
        return int(str(tag.get("start", "1")))
    except ValueError:
        return 1


def _language(tag: Tag) -> str:
    """The fence info string from class="language-x" on <pre> or on its <code>."""
    code = tag.find("code")
    for element in (tag, code) if isinstance(code, Tag) else (tag,):
        for name in element.get_attribute_list("class"):
            if name and str(name).startswith(("language-", "lang-")):
                return str(name).split("-", 1)[1]
    return ""


_URL_UNSAFE = str.maketrans(
    {"\\": "%5C", " ": "%20", "(": "%28", ")": "%29", "<": "%3C", ">": "%3E", "\n": "", "\t": ""}
)


def _link_target(href: str) -> str | None:
    """http(s), mailto and relative links, made safe as a Markdown link destination."""
    href = href.strip()
    scheme = _SCHEME.match(href)
    if not href or (scheme and scheme.group(1).lower() not in _LINK_SCHEMES):
        return None
    return href.translate(_URL_UNSAFE)
