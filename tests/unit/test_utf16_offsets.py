"""UTF-16 offsets of paragraphs (ingest) and of evidence sentences (answers): the slice of the
source's UTF-16 code units between them is exactly the code-point slice, whatever lies before
it (emoji, astral letters, ZWJ sequences, CJK, combining marks)."""

from __future__ import annotations

from typing import Any

import pytest

from ingest.problems import Problem
from ingest.units import (
    DocumentUnit,
    KnowledgePointIndex,
    build_unit,
    read_source,
    utf16_length,
    utf16_offsets,
)
from service.answer.sentences import EvidenceSentence, evidence_sentences
from service.pipeline.budgets import BUDGETS
from service.pipeline.context_pack import build_context_pack
from tests.unit.answer_fixtures import fragment

SOURCE = (
    "---\n"
    "title: Glyphs 😀\n"
    "---\n"
    "# Glyphs 𝔘 and 汉字\n\n"
    "Intro 😀 before 𝔘 the point. The family 👩‍👩‍👧 is one grapheme of five code points! "
    "水玻璃是硅酸钠的水溶液。Café with e\u0301 combining marks ends here 𝔘.\n\n"
    "- 😀 The first item is a list item.\n"
    "- 𝔘 The second item follows 👩‍👩‍👧 it.\n\n"
    "## Table 😀\n\n"
    "| Name | Glyph |\n"
    "|---|---|\n"
    "| Smile 😀 | 𝔘 |\n"
    "| Family | 👩‍👩‍👧 |\n\n"
    "```mermaid\n"
    "flowchart LR\n"
    "  A[Emoji 😀] -->|causes| B[Letter 𝔘]\n"
    "```\n\n"
    "A plain ASCII paragraph closes the page.\n"
)


def _utf16_slice(source: str, start: int, end: int) -> str:
    return source.encode("utf-16-le")[2 * start : 2 * end].decode("utf-16-le")


def _unit(source: str = SOURCE) -> DocumentUnit:
    parsed = read_source("s", "s/glyphs.md", source, max_block_chars=10_000)
    assert not isinstance(parsed, Problem)
    kps = parsed.knowledge_points
    index = KnowledgePointIndex([(k.id, k.title, k.aliases) for k in kps], {})
    return build_unit(parsed, index, model="m")


def _rows(unit: DocumentUnit) -> list[dict[str, Any]]:
    """The unit's paragraphs as cypher/evidence/document_paragraphs returns them."""
    return [
        {"documentId": unit.id, "path": unit.path, "documentVersion": 1, "paragraphId": p["id"],
         **{k: p[k] for k in ("kind", "text", "ordinal", "headingPath", "startOffset",
                              "endOffset", "utf16Start", "startLine", "endLine")}}
        for p in unit.paragraphs
    ]  # fmt: skip


def _sentences(rows: list[dict[str, Any]]) -> tuple[EvidenceSentence, ...]:
    fragments = [fragment(row) for row in rows]
    observed = frozenset(c for f in fragments for c in f.citation_ids)
    pack = build_context_pack(fragments, BUDGETS["base"], observed_ids=observed)
    assert len(pack.fragments) == len(rows)
    return evidence_sentences(pack, rows)


def test_paragraph_offsets_slice_the_same_text_in_utf16() -> None:
    unit = _unit()
    assert {p["kind"] for p in unit.paragraphs} >= {"paragraph", "list", "table", "mermaid"}
    for p in unit.paragraphs:
        text = SOURCE[p["startOffset"] : p["endOffset"]]
        assert text == p["text"]
        assert _utf16_slice(SOURCE, p["utf16Start"], p["utf16End"]) == text
    # Astral characters precede every paragraph, so the two offsets differ throughout.
    assert all(p["utf16Start"] > p["startOffset"] for p in unit.paragraphs)


def test_evidence_sentences_carry_utf16_offsets_of_their_quote() -> None:
    sentences = _sentences(_rows(_unit()))
    assert {s.kind for s in sentences} >= {"paragraph", "list", "table", "mermaid"}
    assert len([s for s in sentences if s.kind == "paragraph"]) >= 4
    for s in sentences:
        assert SOURCE[s.start : s.end] == s.quote
        assert s.utf16_start is not None and s.utf16_end is not None
        assert _utf16_slice(SOURCE, s.utf16_start, s.utf16_end) == s.quote, s
    # A sentence after astral characters of its own paragraph moves further than its paragraph.
    cjk = next(s for s in sentences if s.quote.startswith("水玻璃"))
    assert cjk.utf16_start - cjk.start > 2  # type: ignore[operator]


def test_a_paragraph_without_utf16_start_gives_none() -> None:
    rows = [{k: v for k, v in row.items() if k != "utf16Start"} for row in _rows(_unit())]
    sentences = _sentences(rows)
    assert sentences
    assert all(s.utf16_start is None and s.utf16_end is None for s in sentences)


@pytest.mark.parametrize(
    "source",
    ["plain ascii", "😀𝔘👩‍👩‍👧", "水玻璃 e\u0301 😀 x 𝔘\n\n", ""],
)
def test_utf16_offsets_of_any_positions(source: str) -> None:
    positions = [*range(len(source) + 1), 0, len(source)]  # repeated and unordered are fine
    offsets = utf16_offsets(source, reversed(positions))
    for start in range(len(source) + 1):
        assert offsets[start] == utf16_length(source[:start])
        for end in range(start, len(source) + 1):
            assert _utf16_slice(source, offsets[start], offsets[end]) == source[start:end]
