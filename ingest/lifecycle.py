"""A document's lifecycle beyond uploads: withdraw, restore and purge, each with the scope's
end-of-change steps (orphan knowledge points pruned, degrees refreshed). The API and the CLI
call these; the graph writes are in writer.py (docs/versions.md)."""

from __future__ import annotations

from ingest.embeddings import Embedder
from ingest.pipeline import IngestReport, ingest_file_text
from ingest.versions import WITHDRAWN, NotWithdrawable
from ingest.writer import DocumentGone, prune_knowledge_points, purge_document, withdraw_document
from service.db.graph import Graph
from service.settings import IngestSettings

__all__ = ["document_head", "purge", "restore", "withdraw"]


def document_head(graph: Graph, document_id: str) -> dict[str, object]:
    rows = graph.read("api/document", id=document_id)
    if not rows:
        raise DocumentGone(f"document {document_id} not found")
    return rows[0]


def withdraw(graph: Graph, document_id: str, *, if_match: int | None = None) -> int:
    """Takes the document out of every answer; returns the version it stays at."""
    scope = str(document_head(graph, document_id)["scope"])
    version = withdraw_document(graph, document_id, if_match=if_match)
    _after_change(graph, scope)
    return version


def purge(graph: Graph, document_id: str, *, if_match: int | None = None) -> None:
    scope = str(document_head(graph, document_id)["scope"])
    purge_document(graph, document_id, if_match=if_match)
    _after_change(graph, scope)


def restore(
    graph: Graph,
    embedder: Embedder | None,
    settings: IngestSettings,
    document_id: str,
    *,
    if_match: int | None = None,
) -> IngestReport:
    """Ingests the head version's stored source again: the document comes back as it was
    withdrawn (its vectors made again by the current model)."""
    head = document_head(graph, document_id)
    if head["status"] != WITHDRAWN:
        raise NotWithdrawable(f"document {document_id} is not withdrawn")
    rows = graph.read("api/document_original", id=document_id, version=head["version"])
    if not rows:
        raise DocumentGone(f"document {document_id} has no stored source to restore")
    scope, path = str(head["scope"]), str(head["path"])
    # A converted document (PDF, HTML, ...) is read again from its original file.
    original = rows[0]["original"]
    raw = bytes(original) if original is not None else str(rows[0]["source"]).encode()
    return ingest_file_text(graph, embedder, scope, path.split("/", 1)[1], raw, settings,
                            if_match=if_match)  # fmt: skip


def _after_change(graph: Graph, scope: str) -> None:
    prune_knowledge_points(graph, scope)
    graph.write("ingest/refresh_degrees", scope=scope)
