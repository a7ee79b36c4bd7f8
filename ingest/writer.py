"""Graph writes of ingestion: a document is replaced as a unit, in one managed transaction, so a
reader sees the old version or the new one, never a mix. Every statement is idempotent, so the
driver may retry the transaction and a killed run can simply be run again."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from neo4j import ManagedTransaction

from ingest.units import DocumentUnit
from service.db.graph import Graph, WriteCounters
from service.graph_model import RELATION_TYPES
from service.scope import scope_key
from service.text.facts import paragraph_analysis

__all__ = ["delete_document", "prune_knowledge_points", "unit_analyses", "write_unit"]

# Row fields used to build relationships or embeddings, not stored as node properties.
_HEADING_LINK_FIELDS = ("parentId",)
_PARAGRAPH_TRANSIENT_FIELDS = ("headingId", "embeddingText")


def unit_analyses(units: Iterable[DocumentUnit]) -> dict[str, bytes]:
    """The stored text analysis of every paragraph of the units, by paragraph id (pure Python:
    ingestion computes it for the next documents while Neo4j writes the current ones)."""
    return {p["id"]: paragraph_analysis(p["text"], p["kind"]) for u in units for p in u.paragraphs}


def write_unit(
    graph: Graph,
    unit: DocumentUnit,
    vectors: Mapping[str, list[float]],
    embedding_status: str,
    analyses: Mapping[str, bytes],
) -> WriteCounters:
    """`analyses` holds unit_analyses() of the unit (or more)."""
    doc_id, scope = unit.id, str(unit.document["scope"])
    headings = [_without(h, _HEADING_LINK_FIELDS) for h in unit.headings]
    heading_links = [{"id": h["id"], "parentId": h["parentId"]} for h in unit.headings]
    paragraphs = [
        {
            "id": p["id"],
            "properties": _without(p, _PARAGRAPH_TRANSIENT_FIELDS)
            | {"analysis": analyses[p["id"]]},
            "embedding": vectors.get(p["id"]),
        }
        for p in unit.paragraphs
    ]
    paragraph_links = [
        {
            "id": p["id"],
            "headingId": p["headingId"],
            "previousId": unit.paragraphs[i - 1]["id"] if i else None,
        }
        for i, p in enumerate(unit.paragraphs)
    ]
    knowledge_points = [_struct_dict(kp) for kp in unit.knowledge_points]
    relations = [_struct_dict(r) for r in unit.relations]

    def work(tx: ManagedTransaction) -> WriteCounters:
        total = WriteCounters()
        steps: list[tuple[str, dict[str, Any]]] = [
            ("ingest/upsert_document", {"document": unit.document, "unitHash": unit.unit_hash,
                                        "embeddingStatus": embedding_status}),
            ("ingest/remove_stale_document_parts", {"documentId": doc_id,
                                                    "headingIds": [h["id"] for h in headings],
                                                    "paragraphIds": [p["id"] for p in paragraphs]}),
            ("ingest/upsert_headings", {"rows": headings, "documentId": doc_id, "scope": scope}),
            ("ingest/link_headings", {"rows": heading_links, "documentId": doc_id}),
            ("ingest/upsert_paragraphs", {"rows": paragraphs, "documentId": doc_id,
                                          "scope": scope}),
            ("ingest/link_paragraphs", {"rows": paragraph_links, "documentId": doc_id}),
            ("ingest/clear_document_knowledge", {"documentId": doc_id, "scope": scope}),
            ("ingest/upsert_knowledge_points", {"rows": knowledge_points, "documentId": doc_id,
                                                "scope": scope, "scopeKey": scope_key(scope)}),
            ("ingest/create_relations", {"rows": relations, "documentId": doc_id, "scope": scope,
                                         "relationTypes": list(RELATION_TYPES)}),
        ]  # fmt: skip
        for name, params in steps:
            total = total + graph.run_write(tx, name, **params).counters
        return total

    return graph.in_write_transaction(work, label=f"ingest {unit.path}")


def delete_document(graph: Graph, document_id: str) -> WriteCounters:
    return graph.write("ingest/delete_document", documentId=document_id).counters


def prune_knowledge_points(graph: Graph, scope: str) -> int:
    return int(graph.write("ingest/prune_knowledge_points", scope=scope).rows[0]["pruned"])


def _without(row: Mapping[str, Any], fields: tuple[str, ...]) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k not in fields}


def _struct_dict(value: Any) -> dict[str, Any]:
    return {field: getattr(value, field) for field in value.__struct_fields__}
