"""A document's comparable facts as the rows ingest writes as `(:Fact)` nodes
(cypher/ingest/replace_facts.cypher, docs/health.md "Facts as nodes").

The rows are exactly the facts the conflict scan finds in the document read alone: the same
extraction (service/text/facts), the same per-document cap, the same context added to the
condition scope (`in_context`). Only the document's version is left out: the write
transaction decides it (ingest/versions.py) and the statement stamps it on each node.

A fact's place is kept as offsets: value and sentence inside the paragraph text, sentence start
in the source file and its line. The text itself stays on the paragraph (and, for old
versions, in the version's structure); a node carries only its value as written.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import msgspec

from service.text.facts import (
    Fact,
    Passage,
    Scope,
    bind_facts,
    document_profile,
    fact_heads,
    frame_halves,
    in_context,
)

if TYPE_CHECKING:
    from ingest.units import DocumentUnit

__all__ = ["DocumentFacts", "document_facts", "unit_facts"]


class DocumentFacts(msgspec.Struct, frozen=True):
    """What ingest writes with a document for the conflict scan: a row per Fact node, and the
    document's profile (its words, names and figures, and token count: DocumentProfile), which
    the scan reads instead of every paragraph's words."""

    rows: list[dict[str, Any]]
    profile: dict[str, Any]


def unit_facts(unit: DocumentUnit, analyses: Mapping[str, bytes]) -> DocumentFacts:
    """The facts of one document, from its paragraphs' stored analyses (`analyses`, by
    paragraph id: ingest/writer.derive makes them)."""
    return document_facts([
        Passage(
            document_id=unit.id, path=unit.path, paragraph_id=str(p["id"]), text=str(p["text"]),
            start_offset=int(p["startOffset"]), start_line=int(p["startLine"]),
            kind=str(p["kind"]), analysis=analyses.get(str(p["id"]), b""),
            heading_path=tuple(p["headingPath"]),
        )
        for p in unit.paragraphs
    ])  # fmt: skip


def document_facts(passages: Sequence[Passage]) -> DocumentFacts:
    """The facts of one document's passages (all of them, in reading order)."""
    heads = fact_heads(passages)
    bound = bind_facts(passages, heads)
    placed = {fact.order: fact for fact in in_context(bound, passages)}
    pairs = zip(heads, bound, strict=True)
    profile = document_profile(passages)
    return DocumentFacts(
        rows=[_row(fact, head.index, placed.get(fact.order)) for head, fact in pairs],
        # Words and figures hold no whitespace (analysis.py): one string each, one split to read.
        profile={"words": " ".join(sorted(profile.words)),
                 "anchors": " ".join(sorted(profile.anchors)), "tokens": profile.tokens},
    )  # fmt: skip


def _conditions(scope: Scope) -> list[str]:
    """A condition scope as the node stores it: "dimension=value" (a dimension holds no "=")."""
    return [f"{dimension}={value}" for dimension, value in scope]


def _row(fact: Fact, index: int, placed: Fact | None) -> dict[str, Any]:
    """`placed`: the fact with its context, None when the context drops it (a list item's
    number); such a fact is kept, marked `listNumber`, as the scan also counts it."""
    before, after = frame_halves(fact.key) if fact.kind == "aligned" else ("", "")
    scope = placed.scope if placed is not None else fact.scope
    return {
        "paragraphId": fact.paragraph_id, "index": index, "order": fact.order,
        "kind": fact.kind, "subject": fact.subject, "key": fact.key, "norm": fact.norm,
        "value": fact.value, "conditions": _conditions(scope),
        "contextual": _conditions(tuple(c for c in scope if c not in fact.scope)),
        "listNumber": placed is None, "before": before, "after": after,
        "sentenceStart": fact.sentence_start, "sentenceEnd": fact.sentence_end,
        "valueStart": fact.value_start, "valueEnd": fact.value_end,
        "tokenStart": fact.token_start, "tokenEnd": fact.token_end,
        "startOffset": fact.start_offset, "line": fact.line,
    }  # fmt: skip
