"""Contradicting facts across a whole scope: subjects its active documents state with two or
more values under one condition scope, read from the Fact nodes ingest writes
(cypher/health/contradicting_facts.cypher), ranked by how often answers cited them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from service.db.graph import Graph

__all__ = ["Contradiction", "FactSide", "contradictions"]


class FactSide(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    """One statement of the subject: its value, where it stands and the sentence that says it."""

    value: str
    document_id: str
    path: str
    title: str
    version: int
    paragraph_id: str
    line: int
    start_offset: int  # of the sentence in the source file
    quote: str  # the sentence, at most `quote_chars`
    page: int | None = None  # a converted document's page (PDF)
    anchor: str | None = None  # a converted document's anchor (HTML)
    cited: int = 0  # answer records that cite this paragraph


class Contradiction(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    key: str  # the subject key the scan groups by: "<kind>:<subject>"
    kind: str
    subject: str
    conditions: tuple[str, ...]  # the condition scope, "dimension=value"; empty: unconditioned
    values: tuple[str, ...]  # the distinct values, as first written
    sides: tuple[FactSide, ...]  # every statement, in document and reading order
    cited: int  # answer records citing a side's paragraph, each counted once


def contradictions(
    graph: Graph,
    scope: str,
    *,
    start: int,
    limit: int,
    max_findings: int,
    max_sides: int,
    quote_chars: int,
) -> tuple[list[Contradiction], int]:
    """The scope's contradictions ranked, the most cited first (then by subject key): those
    from position `start`, at most `limit`, and how many there are (at most `max_findings`).
    Only the page's paragraphs are read for their quotes: a scope's contradictions may be
    thousands, their paragraphs' text many megabytes."""
    rows = graph.read("health/contradicting_facts", scope=scope, maxFindings=max_findings,
                      maxSides=max_sides)  # fmt: skip
    rows.sort(key=lambda r: (-int(r["cited"]), str(r["key"]), list(r["conditions"])))
    page = rows[start : start + limit]
    ids = sorted({str(side["paragraphId"]) for row in page for side in row["sides"]})
    texts = {r["id"]: str(r["text"]) for r in graph.read("health/paragraph_texts", ids=ids)}
    return [_contradiction(row, texts, quote_chars) for row in page], len(rows)


def _contradiction(
    row: Mapping[str, Any], texts: Mapping[str, str], quote_chars: int
) -> Contradiction:
    sides = tuple(_side(side, texts, quote_chars) for side in row["sides"])
    firsts: dict[str, str] = {}
    for side in row["sides"]:
        firsts.setdefault(str(side["norm"]), str(side["value"]))
    return Contradiction(
        key=str(row["key"]), kind=str(row["kind"]), subject=str(row["subject"]),
        conditions=tuple(row["conditions"]), values=tuple(firsts.values()), sides=sides,
        cited=int(row["cited"]),
    )  # fmt: skip


def _side(side: Mapping[str, Any], texts: Mapping[str, str], quote_chars: int) -> FactSide:
    """The statement with its sentence as the quote (empty when its paragraph changed since
    the ranking was read)."""
    text = texts.get(str(side["paragraphId"]), "")
    sentence = text[int(side["sentenceStart"]) : int(side["sentenceEnd"])].strip()
    if len(sentence) > quote_chars:
        sentence = sentence[: quote_chars - 1].rstrip() + "…"
    return FactSide(
        value=str(side["value"]), document_id=str(side["documentId"]), path=str(side["path"]),
        title=str(side["title"] or ""), version=int(side["version"]),
        paragraph_id=str(side["paragraphId"]), line=int(side["line"]),
        start_offset=int(side["startOffset"]), quote=sentence, page=side["pageFirst"],
        anchor=side["anchor"], cited=int(side["cited"]),
    )  # fmt: skip
