"""A large scope's own indexes: its paragraphs get the scope's hash label, and a vector index
and a full-text index over that label, so dense search and BM25 see this scope only.

Vector: Neo4j 5.26 cannot filter inside a vector index; with one shared index, a scope holding
6% of the database's paragraphs needs ~16x oversampled HNSW searches to find its own top 40.
Full text: Lucene's BM25 statistics (document frequency, document count, average length) are
an index's; in the shared index one scope's scores moved whenever another scope changed. In the
scope's own index they are the scope's (with Lucene's usual caveat: a replaced paragraph counts
until its segment is merged). Small scopes need neither: retrieval scores them exactly, cosine
over every paragraph and BM25 with the scope's statistics (service/pipeline/lexical.py).
"""

from __future__ import annotations

import time
from typing import Literal

import msgspec

from service.db.graph import Graph
from service.embedding_space import DEFAULT_SPACE, EmbeddingSpace
from service.scope import scope_fulltext_index, scope_label
from service.settings import IngestSettings

__all__ = [
    "ScopeIndexState",
    "ScopeIndexes",
    "await_online",
    "create_scope_vector_index",
    "refresh_scope_indexes",
    "refresh_scope_vector_index",
]

ScopeIndexState = Literal["none", "online", "populating", "dropped"]
_POLL_INTERVAL_S = 0.5
_KINDS = {
    "vector": ("scope/paragraph_vector_index", "scope/vector_index_state",
               "scope/drop_paragraph_vector_index"),
    "fulltext": ("scope/paragraph_fulltext_index", "scope/fulltext_index_state",
                 "scope/drop_paragraph_fulltext_index"),
}  # fmt: skip


class ScopeIndexes(msgspec.Struct, frozen=True):
    vector: ScopeIndexState
    fulltext: ScopeIndexState


def refresh_scope_vector_index(
    graph: Graph, scope: str, settings: IngestSettings, space: EmbeddingSpace = DEFAULT_SPACE
) -> ScopeIndexState:
    """refresh_scope_indexes, reporting the vector index (what the ingest report lists)."""
    return refresh_scope_indexes(graph, scope, settings, space).vector


def refresh_scope_indexes(
    graph: Graph, scope: str, settings: IngestSettings, space: EmbeddingSpace = DEFAULT_SPACE
) -> ScopeIndexes:
    """Create, complete or drop the scope's vector and full-text indexes to match its size;
    idempotent and cheap when nothing changed (one count, one label scan). The vector index is
    the active model's (`space`) and counts its embedded paragraphs; the full-text index counts
    all of them. A model being switched to gets its scope indexes from the switch
    (ingest/embedding_models.py)."""
    counts = graph.read("scope/paragraph_counts", scope=scope, property=space.vector_property)[0]
    wanted = {
        "vector": counts["embedded"] >= settings.scope_vector_index_min_paragraphs,
        "fulltext": counts["paragraphs"] >= settings.scope_fulltext_index_min_paragraphs,
    }
    names = {"vector": space.scope_index(scope), "fulltext": scope_fulltext_index(scope)}
    states: dict[str, ScopeIndexState] = {}
    for kind, want in wanted.items():
        if not want:
            _, state, drop = _KINDS[kind]
            if graph.read(state, indexName=names[kind]):
                graph.schema(drop, indexName=names[kind])
                states[kind] = "dropped"
            else:
                states[kind] = "none"
    if any(wanted.values()):
        label = scope_label(scope)
        # Indexes first, then the label: labelled paragraphs are merged into a few Lucene
        # segments as they come, where populating a new index left one segment per batch, each
        # searched apart (docs/benchmarks.md). Retrieval uses an own index only once every
        # paragraph of the scope carries the label (service/pipeline/channels.py).
        for kind in (k for k, want in wanted.items() if want):
            if kind == "vector":
                create_scope_vector_index(graph, scope, space)
            else:
                graph.schema(_KINDS[kind][0], label=label, indexName=names[kind])
        while graph.write(
            "scope/label_paragraphs", scope=scope, label=label,
            batch=settings.scope_label_batch_paragraphs,
        ).rows[0]["labelled"]:  # fmt: skip
            pass
        timeouts = {
            "vector": settings.scope_vector_index_timeout_s,
            "fulltext": settings.scope_fulltext_index_timeout_s,
        }
        started = time.monotonic()
        for kind in (k for k, want in wanted.items() if want):
            states[kind] = _await_online(
                graph, _KINDS[kind][1], names[kind], started + timeouts[kind]
            )
    return ScopeIndexes(vector=states["vector"], fulltext=states["fulltext"])


def create_scope_vector_index(graph: Graph, scope: str, space: EmbeddingSpace) -> str:
    """The scope's own vector index for the model's vectors (no-op when it exists)."""
    name = space.scope_index(scope)
    graph.schema("scope/paragraph_vector_index", label=scope_label(scope),
                 vector_property=space.vector_property, indexName=name,
                 dimensions=space.dimensions)  # fmt: skip
    return name


def await_online(graph: Graph, index: str, timeout_s: float) -> ScopeIndexState:
    """Wait until the vector index is ONLINE (or the timeout passes: 'populating')."""
    return _await_online(graph, "scope/vector_index_state", index, time.monotonic() + timeout_s)


def _await_online(graph: Graph, statement: str, index: str, deadline: float) -> ScopeIndexState:
    while True:
        rows = graph.read(statement, indexName=index)
        state = str(rows[0]["state"]) if rows else "MISSING"
        if state == "ONLINE":
            return "online"
        if state == "FAILED":
            raise RuntimeError(f"index {index} FAILED to populate (see SHOW INDEXES)")
        if time.monotonic() > deadline:
            return "populating"  # retrieval keeps using its fallback until it is ONLINE
        time.sleep(_POLL_INTERVAL_S)
