"""`kgs facts rebuild --scope S`: the Fact nodes of documents written before facts were nodes
(or in another layout), made from the paragraphs already in the graph, without re-reading any
file. One transaction per document, under the document's lock, so a concurrent ingest is never
mixed with; the marker it sets (Document.factLayout) makes a stopped run resume where it was."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import msgspec
from neo4j import ManagedTransaction

from ingest.facts import DocumentFacts, document_facts
from service.db.graph import Graph
from service.text.facts import FACT_LAYOUT, Passage

__all__ = ["REBUILD_BATCH", "RebuildReport", "rebuild_facts"]

REBUILD_BATCH = 100  # documents read per statement (their paragraphs come in one read)


class RebuildReport(msgspec.Struct, kw_only=True):
    documents: int = 0  # documents given their facts
    facts: int = 0  # Fact nodes written
    skipped: int = 0  # documents a concurrent write changed first (it wrote their facts)


def rebuild_facts(
    graph: Graph,
    scope: str,
    *,
    batch: int = REBUILD_BATCH,
    on_document: Callable[[str, int], None] | None = None,
) -> RebuildReport:
    """Every document of the scope that lacks facts in the current layout gets them, at its
    current version. `on_document(path, facts)` hears each one written."""
    report = RebuildReport()
    after = ""
    while True:
        due = graph.read("facts/documents_to_rebuild", scope=scope, layout=FACT_LAYOUT,
                         after=after, batch=batch)  # fmt: skip
        if not due:
            return report
        after = str(due[-1]["documentId"])
        ids = [r["documentId"] for r in due]
        read = graph.read("evidence/document_paragraphs", documentIds=ids,
                          factLayout=FACT_LAYOUT)  # fmt: skip
        for document in read:
            facts = document_facts([_passage(document, p) for p in document["paragraphs"]])
            if _write(graph, scope, document, facts):
                report.documents += 1
                report.facts += len(facts.rows)
                if on_document is not None:
                    on_document(str(document["path"]), len(facts.rows))
            else:
                report.skipped += 1
        report.skipped += len(due) - len(read)  # a version committed while they were read


def _passage(document: Mapping[str, Any], paragraph: Mapping[str, Any]) -> Passage:
    return Passage(
        document_id=str(document["documentId"]), path=str(document["path"]),
        paragraph_id=str(paragraph["paragraphId"]), text=str(paragraph["text"]),
        start_offset=int(paragraph["startOffset"]), start_line=int(paragraph["startLine"]),
        kind=str(paragraph["kind"]), analysis=bytes(paragraph.get("analysis") or b""),
        heading_path=tuple(paragraph.get("headingPath") or ()),
    )  # fmt: skip


def _write(graph: Graph, scope: str, document: Mapping[str, Any], facts: DocumentFacts) -> bool:
    """False when the document changed since its paragraphs were read."""
    document_id, version = str(document["documentId"]), int(document["version"])

    def work(tx: ManagedTransaction) -> bool:
        head = graph.run_write(tx, "ingest/lock_existing_document", documentId=document_id).rows
        if not head or head[0]["version"] != version:
            return False
        graph.run_write(tx, "ingest/replace_facts", documentId=document_id, scope=scope,
                        version=version, layout=FACT_LAYOUT, rows=facts.rows,
                        profile=facts.profile)  # fmt: skip
        return True

    return graph.in_write_transaction(work, label=f"facts {document['path']}")
