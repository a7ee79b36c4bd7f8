"""Pure assembly of what one document writes to the graph (a DocumentUnit), in two steps:

1. `read_source` parses one file: Markdown blocks, front matter, its knowledge points.
2. `build_unit` resolves the file's relations against every knowledge point of the scope
   (this batch plus those already in the graph) and produces the rows the writer sends.

Ids are content-derived so that re-ingesting unchanged content yields the same ids:
document = hash(scope, path); heading = hash(document, heading path, occurrence);
paragraph = hash(document, heading path, text, occurrence). Editing one paragraph changes only
that paragraph's id; an inserted paragraph leaves the others' ids (and citation ids) alone.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import msgspec

from ingest.front_matter import FrontMatter, FrontMatterError, parse_front_matter
from ingest.markdown import Block, MarkdownDocument, parse_markdown
from ingest.mermaid import parse_mermaid_edges
from ingest.origin import Origin, block_location
from ingest.problems import Problem
from service.scope import scope_key
from service.text.analysis import ANALYSIS_VERSION
from service.text.facts import FACT_LAYOUT
from service.text.near_keys import KEY_VERSION
from service.text.relation_labels import compact_key, relation_for_label, slug
from service.text.tokens import analyze, field_text

__all__ = [
    "PARSER_VERSION",
    "DocumentUnit",
    "KnowledgePointRow",
    "ParsedSource",
    "RelationRow",
    "build_unit",
    "document_id",
    "read_source",
    "utf16_length",
    "utf16_offsets",
]

# Bump when parsing or id derivation changes: every document is then rewritten once.
PARSER_VERSION = "3"
_LINK_CONFIDENCE = 0.5
_MERMAID_CONFIDENCE = 0.7
_SUMMARY_CHARS = 280
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s")


class KnowledgePointRow(msgspec.Struct, frozen=True):
    id: str
    title: str
    aliases: list[str]
    aliasText: str
    nameKeys: str
    kind: str
    summary: str
    link: str  # DESCRIBED_IN (the document describes it) or DECLARED_IN (only named there)


class RelationRow(msgspec.Struct, frozen=True):
    type: str
    source: str
    target: str
    confidence: float
    provenance: str  # front_matter | mermaid | link
    sourceParagraphId: str | None
    sourceLine: int


class ParsedSource(msgspec.Struct, frozen=True):
    scope: str
    path: str  # relative to the knowledge base root, e.g. "waterglass/waterglass.md"
    source: str
    markdown: MarkdownDocument
    front_matter: FrontMatter
    knowledge_points: tuple[KnowledgePointRow, ...]
    problems: tuple[Problem, ...]
    origin: Origin | None = None  # a converted file (PDF, HTML, ...); None for Markdown

    @property
    def primary_id(self) -> str:
        return self.knowledge_points[0].id


# FACT_LAYOUT (the layout of the Fact nodes written with a unit, ingest/facts.py) is part of
# each unit hash, so a scope written before facts were nodes, or with another layout, gets them
# on its next `kgs ingest`.


class DocumentUnit(msgspec.Struct, frozen=True):
    """Everything one document contributes, written (or replaced) in one transaction."""

    document: dict[str, Any]
    headings: list[dict[str, Any]]
    paragraphs: list[dict[str, Any]]
    knowledge_points: list[KnowledgePointRow]
    relations: list[RelationRow]
    unit_hash: str  # changes whenever anything the unit writes changes
    problems: tuple[Problem, ...] = ()
    source: str = ""  # the exact text the offsets index, kept by the document's version
    original: bytes | None = None  # a converted document's original file, kept by the version
    # Front matter relations to a point the scope does not know (not written: a warning says
    # so); the health report lists them (docs/health.md).
    unresolved: tuple[RelationRow, ...] = ()

    @property
    def id(self) -> str:
        return str(self.document["id"])

    @property
    def path(self) -> str:
        return str(self.document["path"])


def name_keys(kp_id: str, title: str, aliases: Iterable[str]) -> str:
    """'Water glass' -> 'waterglass': one full-text token per name, so a question that writes
    the name spaced or compact finds the knowledge point through the index."""
    return " ".join(dict.fromkeys(k for k in map(compact_key, (kp_id, title, *aliases)) if k))


def document_id(scope: str, path: str) -> str:
    return "d_" + _hash(scope, path)


def read_source(
    scope: str, path: str, source: str, *, max_block_chars: int, passage_words: int = 0
) -> ParsedSource | Problem:
    """Parse one file; a Problem (severity error) when it cannot be ingested at all."""
    markdown = parse_markdown(source, max_block_chars=max_block_chars, passage_words=passage_words)
    if markdown.front_matter_error:
        return Problem(path, markdown.front_matter_line, "error", markdown.front_matter_error)
    front = FrontMatter()
    problems: list[Problem] = []
    if markdown.front_matter is not None:
        try:
            front, warnings = parse_front_matter(markdown.front_matter, markdown.front_matter_line)
        except FrontMatterError as error:
            return Problem(path, error.line, "error", str(error))
        problems.extend(Problem(path, line, "warning", message) for line, message in warnings)
    stem = posixpath.splitext(path.split("/", 1)[1] if "/" in path else path)[0]
    title = front.title or markdown.title or posixpath.basename(stem)
    own = KnowledgePointRow(
        id=front.id or slug(stem),
        title=title,
        aliases=list(front.aliases),
        aliasText=" | ".join(front.aliases),
        nameKeys=name_keys(front.id or slug(stem), title, front.aliases),
        kind=front.kind or "concept",
        summary=front.summary or _summary(markdown.blocks),
        link="DESCRIBED_IN",
    )
    declared = [
        KnowledgePointRow(
            id=kp.id,
            title=kp.title,
            aliases=list(kp.aliases),
            aliasText=" | ".join(kp.aliases),
            nameKeys=name_keys(kp.id, kp.title, kp.aliases),
            kind=kp.kind,
            summary=kp.summary,
            link="DECLARED_IN",
        )
        for kp in front.knowledge_points
        if kp.id != own.id
    ]
    return ParsedSource(
        scope=scope,
        path=path,
        source=source,
        markdown=markdown,
        front_matter=front,
        knowledge_points=(own, *declared),
        problems=tuple(problems),
    )


class KnowledgePointIndex:
    """Resolves ids, titles and aliases (compact, case-insensitive) to knowledge point ids."""

    def __init__(self, entries: Iterable[tuple[str, str, Iterable[str]]], paths: Mapping[str, str]):
        self.ids: set[str] = set()
        self.by_name: dict[str, str] = {}
        self.by_path = dict(paths)  # document path -> its own knowledge point id
        for kp_id, title, aliases in entries:
            self.ids.add(kp_id)
            for name in (kp_id, title, *aliases):
                if key := compact_key(name):  # a punctuation-only name would match any other
                    self.by_name.setdefault(key, kp_id)

    def resolve(self, name: str) -> str | None:
        key = compact_key(name)
        return name if name in self.ids else (self.by_name.get(key) if key else None)


def build_unit(parsed: ParsedSource, index: KnowledgePointIndex, *, model: str) -> DocumentUnit:
    doc_id = document_id(parsed.scope, parsed.path)
    md = parsed.markdown
    problems = list(parsed.problems)

    heading_ids: list[str] = []
    seen: Counter[tuple[str, ...]] = Counter()
    for heading in md.headings:
        seen[heading.heading_path] += 1
        heading_ids.append(
            "h_" + _hash(doc_id, *heading.heading_path, str(seen[heading.heading_path]))
        )
    headings = [
        {
            "id": heading_ids[i],
            "text": h.text,
            "level": h.level,
            "headingPath": list(h.heading_path),
            "ordinal": h.ordinal,
            "startOffset": h.start_offset,
            "endOffset": h.end_offset,
            "startLine": h.start_line,
            "endLine": h.end_line,
            "parentId": heading_ids[h.parent] if h.parent >= 0 else None,
            **_located(parsed.origin, h.start_offset, h.end_offset),
        }
        for i, h in enumerate(md.headings)
    ]

    title = parsed.knowledge_points[0].title
    utf16 = utf16_offsets(
        parsed.source, (o for b in md.blocks for o in (b.start_offset, b.end_offset))
    )
    occurrences: Counter[tuple[tuple[str, ...], str]] = Counter()
    paragraphs: list[dict[str, Any]] = []
    for block in md.blocks:
        occurrences[(block.heading_path, block.text)] += 1
        paragraph_id = "p_" + _hash(
            doc_id,
            *block.heading_path,
            block.text,
            str(occurrences[(block.heading_path, block.text)]),
        )
        embedding_text = embedding_input(title, block)
        heading_text = " > ".join(block.heading_path)
        text_tokens, heading_tokens = analyze(block.text), analyze(heading_text)
        paragraphs.append(
            {
                "id": paragraph_id,
                "kind": block.kind,
                "text": block.text,
                "ordinal": block.ordinal,
                "startOffset": block.start_offset,
                "endOffset": block.end_offset,
                # The same offsets in UTF-16 code units, for clients that slice strings by them
                # (JavaScript, Java); citations add the sentence's place in the paragraph.
                "utf16Start": utf16[block.start_offset],
                "utf16End": utf16[block.end_offset],
                "startLine": block.start_line,
                "endLine": block.end_line,
                "headingPath": list(block.heading_path),
                "headingText": heading_text,
                # The full-text fields' tokens, for BM25 with the scope's own statistics
                # (service/pipeline/lexical.py); part of the unit hash, so a paragraph written
                # without them is rewritten by the next `kgs ingest`.
                "textTokens": field_text(text_tokens),
                "textTokenCount": len(text_tokens),
                "headingTokens": field_text(heading_tokens),
                "headingTokenCount": len(heading_tokens),
                "scopeKey": scope_key(parsed.scope),
                "headingId": heading_ids[block.heading] if block.heading >= 0 else None,
                "contentHash": _hash(block.text),
                # The text every model's vector of the paragraph was made from (the vectors'
                # properties say which models: service/embedding_space.py).
                "embeddingHash": _hash(embedding_text),
                "embeddingText": embedding_text,
                **_located(parsed.origin, block.start_offset, block.end_offset),
            }
        )

    unresolved: list[RelationRow] = []
    relations = _relations(parsed, index, paragraphs, problems, unresolved)
    front = parsed.front_matter
    document = {
        "id": doc_id,
        "scope": parsed.scope,
        "path": parsed.path,
        "title": title,
        "contentHash": _hash(PARSER_VERSION, parsed.source),
        "updated": front.updated,
        "validUntil": front.valid_until,
        "supersededBy": front.superseded_by,
        "embeddingModel": model,
        # The original file of a converted document (docs/formats.md); Markdown: text/markdown.
        "mediaType": parsed.origin.media_type if parsed.origin else "text/markdown",
        "originalHash": parsed.origin.hash if parsed.origin else None,
        "originalSize": parsed.origin.size if parsed.origin else None,
        "pages": parsed.origin.pages if parsed.origin else None,
        # The document's share of its scope's full-text statistics, written with its paragraphs
        # in one transaction: BM25 reads the scope's totals from its documents
        # (cypher/retrieval/fulltext_paragraphs_exact). One list, so a question reads one
        # property per document: [paragraphs, paragraphs with text tokens, text tokens,
        # paragraphs with heading tokens, heading tokens].
        "lexicalStats": [
            len(paragraphs),
            sum(1 for p in paragraphs if p["textTokenCount"]),
            sum(p["textTokenCount"] for p in paragraphs),
            sum(1 for p in paragraphs if p["headingTokenCount"]),
            sum(p["headingTokenCount"] for p in paragraphs),
        ],
    }
    # The stored text analysis, the near-duplicate keys and the facts are written with the unit
    # (ingest/writer.py derives them from the text): a new version of the code that produces
    # them, or of the facts' layout, makes every document a changed one.
    unit_hash = _hash(
        ANALYSIS_VERSION,
        FACT_LAYOUT,
        KEY_VERSION,
        msgspec.json.encode(
            [document, headings, paragraphs, parsed.knowledge_points, relations]
        ).decode(),
    )
    return DocumentUnit(
        document=document,
        headings=headings,
        paragraphs=paragraphs,
        knowledge_points=list(parsed.knowledge_points),
        relations=relations,
        unresolved=tuple(unresolved),
        unit_hash=unit_hash,
        problems=tuple(problems),
        source=parsed.source,
        original=parsed.origin.original if parsed.origin else None,
    )


def _located(origin: Origin | None, start: int, end: int) -> dict[str, Any]:
    """Where a converted document's block came from (page, anchor); nothing for Markdown, so
    a Markdown unit and its hash stay as they were."""
    return block_location(origin, start, end) if origin else {}


def utf16_length(text: str) -> int:
    """The length of `text` in UTF-16 code units: a character beyond U+FFFF (an emoji, 𝔘)
    counts two."""
    return len(text) if text.isascii() else len(text.encode("utf-16-le", "surrogatepass")) // 2


def utf16_offsets(source: str, positions: Iterable[int]) -> dict[int, int]:
    """Code-point offset -> UTF-16 offset of each position in `source`, in one pass: each
    stretch between consecutive positions is encoded once, so O(len(source)) in all."""
    if source.isascii():
        return {position: position for position in positions}
    offsets: dict[int, int] = {}
    previous = units = 0
    for position in sorted(set(positions)):
        units += utf16_length(source[previous:position])
        offsets[position] = units
        previous = position
    return offsets


def embedding_input(title: str, block: Block) -> str:
    """What the model embeds: the paragraph in its document and section context."""
    return embedding_text(title, block.heading_path, block.text)


def embedding_text(title: str, heading_path: Sequence[str], text: str) -> str:
    """embedding_input from a stored paragraph's parts (a model switch embeds these)."""
    context = " > ".join((title, *heading_path[1:])) if heading_path else title
    return f"{context}\n{text}"


def embedding_hash(text: str) -> str:
    """A paragraph's embeddingHash for its embedding text."""
    return _hash(text)


def _relations(
    parsed: ParsedSource,
    index: KnowledgePointIndex,
    paragraphs: list[dict[str, Any]],
    problems: list[Problem],
    unresolved: list[RelationRow],
) -> list[RelationRow]:
    path, own = parsed.path, parsed.primary_id
    rows: list[RelationRow] = []

    def add(kind: str, source: str, target: str, confidence: float, provenance: str,
            paragraph: str | None, line: int) -> None:  # fmt: skip
        if source == target:
            problems.append(Problem(path, line, "warning", f"{kind} relation to itself ignored"))
            return
        rows.append(RelationRow(kind, source, target, confidence, provenance, paragraph, line))

    for spec in parsed.front_matter.relations:
        target = index.resolve(spec.target)
        if target is None:
            problems.append(
                Problem(
                    path,
                    spec.line,
                    "warning",
                    f"relation target {spec.target!r} is unknown in scope {parsed.scope!r}",
                )
            )
            unresolved.append(
                RelationRow(
                    spec.type,
                    spec.source or own,
                    spec.target,
                    spec.confidence,
                    "front_matter",
                    None,
                    spec.line,
                )
            )
            continue
        add(spec.type, spec.source or own, target, spec.confidence, "front_matter", None, spec.line)

    for block, paragraph in zip(parsed.markdown.blocks, paragraphs, strict=True):
        if block.kind == "mermaid":
            for edge in parse_mermaid_edges(block.text):
                line = block.start_line + edge.line_offset
                kind = relation_for_label(edge.label)
                if kind is None:
                    problems.append(
                        Problem(
                            path,
                            line,
                            "warning",
                            f"Mermaid edge label {edge.label!r} names no relation type",
                        )
                    )
                    continue
                source, target = index.resolve(edge.source), index.resolve(edge.target)
                for name, resolved in ((edge.source, source), (edge.target, target)):
                    if resolved is None:
                        problems.append(
                            Problem(
                                path,
                                line,
                                "warning",
                                f"Mermaid node {name!r} matches no knowledge point",
                            )
                        )
                if source and target:
                    add(kind, source, target, _MERMAID_CONFIDENCE, "mermaid", paragraph["id"], line)
        for link in block.links:
            target_path = _link_path(path, link.href)
            if target_path is None:
                continue
            target = index.by_path.get(target_path)
            if target is None:
                problems.append(
                    Problem(path, link.line, "warning", f"link to unknown document {link.href!r}")
                )
                continue
            add("REFERENCES", own, target, _LINK_CONFIDENCE, "link", paragraph["id"], link.line)
    return _dedupe(rows)


def _dedupe(rows: list[RelationRow]) -> list[RelationRow]:
    """One relation per (type, source, target, provenance): the first occurrence wins."""
    seen: set[tuple[str, str, str, str]] = set()
    out = []
    for row in rows:
        key = (row.type, row.source, row.target, row.provenance)
        if key not in seen:
            seen.add(key)
            out.append(row)
    return out


def _link_path(path: str, href: str) -> str | None:
    """The knowledge-base path a relative Markdown link points at, or None for other links."""
    if not href or "://" in href or href.startswith(("mailto:", "#", "/")):
        return None
    target = href.split("#", 1)[0].split("?", 1)[0]
    if not target.lower().endswith(".md"):
        return None
    return posixpath.normpath(posixpath.join(posixpath.dirname(path), target))


def _summary(blocks: Iterable[Block]) -> str:
    for block in blocks:
        if block.kind == "paragraph":
            sentence = _SENTENCE_END.split(block.text.strip(), maxsplit=1)[0]
            return sentence[:_SUMMARY_CHARS]
    return ""


def _hash(*parts: str) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode("utf-8"))
        digest.update(b"\x00")
    return digest.hexdigest()[:20]
