"""Markdown source -> heading tree and ordered blocks with exact offsets.

markdown-it-py (CommonMark + tables) finds the block structure; offsets are computed on the raw
source from the token line maps, so `source[start_offset:end_offset] == text` holds for every
block and heading. A block is a top-level paragraph, list, table, code fence, Mermaid fence or
block quote; nested content stays inside its top-level block.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from typing import Literal

import msgspec
from markdown_it import MarkdownIt
from markdown_it.token import Token

__all__ = ["Block", "BlockKind", "Heading", "Link", "MarkdownDocument", "parse_markdown"]

BlockKind = Literal["paragraph", "list", "table", "code", "mermaid", "quote"]

_MD = MarkdownIt("commonmark").enable("table")
_BLOCK_KIND: dict[str, BlockKind] = {
    "paragraph_open": "paragraph",
    "bullet_list_open": "list",
    "ordered_list_open": "list",
    "blockquote_open": "quote",
    "table_open": "table",
    "html_block": "paragraph",
    "code_block": "code",
}
_FRONT_MATTER_FENCE = "---"
# The line breaks markdown-it knows (\r\n, \r, \n). str.splitlines also breaks at U+2028, \v,
# \f, ... which shifted every token line map after one of them and dropped text.
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_FRONT_MATTER_END = ("---", "...")


class Link(msgspec.Struct, frozen=True):
    href: str
    text: str
    line: int  # 1-based source line


class Heading(msgspec.Struct, frozen=True):
    text: str
    level: int
    ordinal: int
    parent: int  # index of the parent heading, -1 at top level
    heading_path: tuple[str, ...]  # ancestors' texts and its own
    start_offset: int
    end_offset: int
    start_line: int  # 1-based, inclusive
    end_line: int


class Block(msgspec.Struct, frozen=True):
    kind: BlockKind
    text: str
    ordinal: int
    heading: int  # index of the enclosing heading, -1 before the first heading
    heading_path: tuple[str, ...]
    start_offset: int
    end_offset: int
    start_line: int
    end_line: int
    links: tuple[Link, ...] = ()
    info: str = ""  # a fence's info string (language)


class MarkdownDocument(msgspec.Struct, frozen=True):
    front_matter: str | None  # the YAML text between the fences, if any
    front_matter_line: int  # 1-based line of the first YAML line
    front_matter_error: str | None
    headings: tuple[Heading, ...]
    blocks: tuple[Block, ...]

    @property
    def title(self) -> str | None:
        """The first H1, if any."""
        return next((h.text for h in self.headings if h.level == 1), None)


def parse_markdown(
    source: str, *, max_block_chars: int = 20_000, passage_words: int = 0
) -> MarkdownDocument:
    """`passage_words` > 0: prose paragraphs longer than that many words become several
    passages, cut between sentences, so each fits the embedding model's window."""
    lines = _LINE.findall(source)
    starts = _line_starts(lines)
    front, front_line, front_error, body_line = _split_front_matter(lines)
    body = "".join(lines[body_line:])
    tokens = _MD.parse(body)

    headings: list[Heading] = []
    blocks: list[Block] = []
    stack: list[int] = []  # indices of open headings, by level
    for index, token in enumerate(tokens):
        if token.level != 0 or token.map is None:
            continue
        first, last = token.map[0] + body_line, token.map[1] + body_line
        if token.type == "heading_open":
            level = int(token.tag[1:])
            while stack and headings[stack[-1]].level >= level:
                stack.pop()
            parent = stack[-1] if stack else -1
            content = tokens[index + 1].content if index + 1 < len(tokens) else ""
            start, end = _span(source, starts, first, last)
            found = source.find(content, start, end) if content else -1
            if found >= 0:
                start, end = found, found + len(content)
            path = (*headings[parent].heading_path, content) if parent >= 0 else (content,)
            headings.append(
                Heading(
                    text=content,
                    level=level,
                    ordinal=len(headings),
                    parent=parent,
                    heading_path=path,
                    start_offset=start,
                    end_offset=end,
                    start_line=first + 1,
                    end_line=last,
                )
            )
            stack.append(len(headings) - 1)
            continue
        kind = _kind(token)
        if kind is None:
            continue
        owner = stack[-1] if stack else -1
        path = headings[owner].heading_path if owner >= 0 else ()
        start, end = _span(source, starts, first, last)
        pieces = _pieces(source, start, end, max_block_chars)
        if kind in _PROSE and passage_words > 0:
            pieces = (p for a, b in pieces for p in _passages(source, a, b, passage_words))
        for piece_start, piece_end in pieces:
            blocks.append(
                Block(
                    kind=kind,
                    text=source[piece_start:piece_end],
                    ordinal=len(blocks),
                    heading=owner,
                    heading_path=path,
                    start_offset=piece_start,
                    end_offset=piece_end,
                    start_line=_line_of(starts, piece_start),
                    end_line=_line_of(starts, max(piece_start, piece_end - 1)),
                    info=token.info.strip() if token.type == "fence" else "",
                )
            )
    return MarkdownDocument(
        front_matter=front,
        front_matter_line=front_line,
        front_matter_error=front_error,
        headings=tuple(headings),
        blocks=tuple(_attach_links(blocks, tokens, body_line)),
    )


def _kind(token: Token) -> BlockKind | None:
    if token.type == "fence":
        language = token.info.strip().split(maxsplit=1)[0].lower() if token.info.strip() else ""
        return "mermaid" if language == "mermaid" else "code"
    return _BLOCK_KIND.get(token.type)


def _attach_links(blocks: list[Block], tokens: list[Token], body_line: int) -> Iterator[Block]:
    """Give each block the links of the inline tokens inside its line range."""
    found: list[Link] = []
    for token in tokens:
        if token.type == "inline" and token.level > 0:
            found.extend(_links(token, body_line))
    for block in blocks:
        own = tuple(link for link in found if block.start_line <= link.line <= block.end_line)
        yield msgspec.structs.replace(block, links=own) if own else block


def _links(token: Token, body_line: int) -> list[Link]:
    line = (token.map[0] if token.map else 0) + body_line + 1
    links: list[Link] = []
    children = token.children or []
    for i, child in enumerate(children):
        if child.type == "link_open":
            href = str(child.attrs.get("href", ""))
            text = children[i + 1].content if i + 1 < len(children) else ""
            links.append(Link(href=href, text=text, line=line))
    return links


def _split_front_matter(lines: list[str]) -> tuple[str | None, int, str | None, int]:
    """(yaml text, its first line, error, index of the first body line)."""
    if not lines or lines[0].rstrip("\r\n").rstrip() != _FRONT_MATTER_FENCE:
        return None, 0, None, 0
    for index in range(1, len(lines)):
        if lines[index].rstrip("\r\n").rstrip() in _FRONT_MATTER_END:
            return "".join(lines[1:index]), 2, None, index + 1
    return None, 1, "front matter opened with '---' on line 1 is never closed", 0


def _line_starts(lines: list[str]) -> list[int]:
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    return starts


def _line_of(starts: list[int], offset: int) -> int:
    """1-based line number of a character offset."""
    return bisect.bisect_right(starts, offset)


def _span(source: str, starts: list[int], first: int, last: int) -> tuple[int, int]:
    """Offsets of lines [first, last), without trailing whitespace."""
    start = starts[min(first, len(starts) - 1)]
    end = starts[min(last, len(starts) - 1)]
    while end > start and source[end - 1] in " \t\r\n":
        end -= 1
    return start, end


def _pieces(source: str, start: int, end: int, limit: int) -> Iterator[tuple[int, int]]:
    """Split an oversized block at line ends (or, for a huge line, at whitespace) under `limit`."""
    while end - start > limit:
        cut = source.rfind("\n", start, start + limit)
        if cut <= start:
            cut = source.rfind(" ", start, start + limit)
        if cut <= start:
            cut = start + limit
        piece_end = cut
        while piece_end > start and source[piece_end - 1] in " \t\r\n":
            piece_end -= 1
        yield start, piece_end if piece_end > start else cut
        start = cut
        while start < end and source[start] in " \t\r\n":
            start += 1
    if end > start:
        yield start, end


_PROSE = frozenset({"paragraph", "quote"})
_WORDS = re.compile(r"\S+")


def _passages(source: str, start: int, end: int, limit: int) -> Iterator[tuple[int, int]]:
    """Cut source[start:end] between sentences into runs of at most `limit` words (a longer
    sentence stays whole); offsets stay exact, so citations into a passage are unchanged."""
    from service.text.spans import split_sentences  # the one sentence splitter

    text = source[start:end]
    if len(_WORDS.findall(text)) <= limit:
        yield start, end
        return
    first = last = None
    words = 0
    for sentence in split_sentences(text):
        count = len(_WORDS.findall(sentence.text))
        if first is not None and last is not None and words + count > limit:
            yield start + first, start + last
            first, words = None, 0
        if first is None:
            first = sentence.start
        last, words = sentence.end, words + count
    if first is not None and last is not None:
        yield start + first, start + last
