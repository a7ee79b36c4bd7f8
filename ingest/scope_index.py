"""A large scope's own vector index: its paragraphs get the scope's hash label and a vector
index over that label, so the dense search ranks this scope only.

Neo4j 5.26 cannot filter inside a vector index; with one shared index, a scope holding 6% of
the database's paragraphs needs ~16x oversampled HNSW searches to find its own top 40. Small
scopes need no index: retrieval scores them exactly.
"""

from __future__ import annotations

import time
from typing import Literal

from service.db.graph import Graph
from service.scope import scope_label, scope_vector_index
from service.settings import IngestSettings

__all__ = ["ScopeIndexState", "refresh_scope_vector_index"]

ScopeIndexState = Literal["none", "online", "populating", "dropped"]
_POLL_INTERVAL_S = 0.5


def refresh_scope_vector_index(
    graph: Graph, scope: str, settings: IngestSettings
) -> ScopeIndexState:
    """Create, complete or drop the scope's index to match its size; idempotent and cheap
    when nothing changed (one count, one label scan)."""
    index = scope_vector_index(scope)
    paragraphs = graph.read("scope/embedded_paragraph_count", scope=scope)[0]["paragraphs"]
    if paragraphs < settings.scope_vector_index_min_paragraphs:
        if not graph.read("scope/vector_index_state", indexName=index):
            return "none"
        graph.schema("scope/drop_paragraph_vector_index", indexName=index)
        return "dropped"
    label = scope_label(scope)
    while graph.write(
        "scope/label_paragraphs", scope=scope, label=label,
        batch=settings.scope_label_batch_paragraphs,
    ).rows[0]["labelled"]:  # fmt: skip
        pass
    graph.schema("scope/paragraph_vector_index", label=label, indexName=index)
    deadline = time.monotonic() + settings.scope_vector_index_timeout_s
    while True:
        rows = graph.read("scope/vector_index_state", indexName=index)
        state = str(rows[0]["state"]) if rows else "MISSING"
        if state == "ONLINE":
            return "online"
        if state == "FAILED":
            raise RuntimeError(f"vector index {index} FAILED to populate (see SHOW INDEXES)")
        if time.monotonic() > deadline:
            return "populating"  # retrieval keeps using the shared index until it is ONLINE
        time.sleep(_POLL_INTERVAL_S)
