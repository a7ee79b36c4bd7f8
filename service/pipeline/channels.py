"""Retrieval's channels: which statements find a scope's candidates (full-text, vector, the
named concepts' lead paragraphs), chosen by the scope's size and its own indexes, and how they
overlap the question's embedding. Fusion happens in retrieval.py."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import Future
from typing import Any

import msgspec
from neo4j.exceptions import ClientError

from service.db.graph import Graph
from service.embedding_space import DEFAULT_SPACE, EmbeddingSpace
from service.pipeline.lexical import exact_fulltext, query_clauses
from service.pipeline.lucene import lucene_clauses
from service.pipeline.names import NameMatch, names_lead
from service.pipeline.plan import QueryPlan
from service.scope import scope_fulltext_index, scope_label
from service.settings import PipelineSettings

__all__ = [
    "CHANNELS",
    "Candidate",
    "Channels",
    "ScopeChannels",
    "ScopeSize",
    "channel_reads",
    "indexed_scope",
    "scope_channels",
    "scope_size",
]

CHANNELS = frozenset({"fulltext", "vector", "knowledgePoint"})


_LEAD_PARAGRAPHS = 3


class Candidate(msgspec.Struct, frozen=True):
    paragraph_id: str
    document_id: str
    score: float  # the channel's own score (BM25, cosine, or 1.0 for named documents)


Channels = dict[str, list[Candidate]]


class ScopeSize(msgspec.Struct, frozen=True):
    paragraphs: int  # in the scope
    all_paragraphs: int  # in the database
    own_index: bool  # the scope's own vector index is ONLINE (ingest/scope_index.py)
    own_fulltext_index: bool = False  # the scope's own full-text index is ONLINE


# (scope, the model's vector property) -> (time read, size)
_SIZES: dict[tuple[str, str], tuple[float, ScopeSize]] = {}


_SIZES_TTL_S = 60.0
_SIZES_MAX_SCOPES = 1024


def scope_size(
    graph: Graph, scope: str, settings: PipelineSettings, space: EmbeddingSpace = DEFAULT_SPACE
) -> ScopeSize:
    """Cached for a minute: only used to choose exact, own-index or shared-index search (a
    stale size never makes full-text scores inexact: the exact statement counts the scope
    itself, and a missing own index falls back to it). `own_index` is the model's (`space`)."""
    now = time.monotonic()
    cached = _SIZES.get((scope, space.vector_property))
    if cached and now - cached[0] < _SIZES_TTL_S:
        return cached[1]
    row = graph.read("retrieval/paragraph_counts", scope=scope, label=scope_label(scope))[0]
    in_scope = int(row["scopeParagraphs"])
    # An own index answers for the scope only once every paragraph carries the scope's label
    # (ingest creates the index first, then labels, and labels new paragraphs after writing).
    complete = int(row["labelled"]) == in_scope
    own = (
        complete
        and in_scope > settings.exact_vector_max_paragraphs
        and _online(graph, "scope/vector_index_state", space.scope_index(scope))
    )
    own_fulltext = (
        complete
        and in_scope > settings.exact_fulltext_max_paragraphs
        and _online(graph, "scope/fulltext_index_state", scope_fulltext_index(scope))
    )
    if len(_SIZES) >= _SIZES_MAX_SCOPES:
        _SIZES.clear()
    size = ScopeSize(in_scope, int(row["allParagraphs"]), own, own_fulltext)
    _SIZES[(scope, space.vector_property)] = (now, size)
    return size


def _forget_size(scope: str) -> None:
    for key in [k for k in _SIZES if k[0] == scope]:
        _SIZES.pop(key, None)


def _online(graph: Graph, statement: str, index: str) -> bool:
    return any(r["state"] == "ONLINE" for r in graph.read(statement, indexName=index))


def searches_own_fulltext(size: ScopeSize, settings: PipelineSettings) -> bool:
    """A large scope whose own full-text index is ONLINE: full-text reads ask that index."""
    return size.paragraphs > settings.exact_fulltext_max_paragraphs and size.own_fulltext_index


def indexed_scope(size: ScopeSize, settings: PipelineSettings) -> bool:
    """A large scope whose own vector and full-text indexes answer for it: its channels come
    in one statement (scope_channels)."""
    large = size.paragraphs > max(
        settings.exact_vector_max_paragraphs, settings.exact_fulltext_max_paragraphs
    )
    return large and size.own_index and size.own_fulltext_index


class ScopeChannels(msgspec.Struct, frozen=True):
    seq: int  # the scope's change-feed position when the statement ran
    lucene: str  # the Lucene query run
    fulltext_mode: str
    found: Channels


def scope_channels(
    graph: Graph,
    plan: QueryPlan,
    names: Sequence[NameMatch],
    terms: Sequence[str],
    phrases: Sequence[str],
    lucene: str,
    query_vector: Sequence[float] | Future[list[float]] | None,
    settings: PipelineSettings,
    channels: frozenset[str],
    space: EmbeddingSpace = DEFAULT_SPACE,
) -> ScopeChannels | None:
    """The channels of an indexed scope (indexed_scope) in one statement
    (cypher/retrieval/channels_scope_index.cypher). With the question's vector at hand its HNSW
    search is part of it; while the embedding computes, full-text and leads are read during
    that wait and the vector search follows it. None when an index went away since the scope's
    state was cached: then the per-channel reads answer."""
    own = lucene_clauses(terms, phrases) if "fulltext" in channels else ""
    named = [n.document_id for n in names if n.document_id]
    leading = "knowledgePoint" in channels and bool(named) and names_lead(plan, names)
    wants_vector = query_vector is not None and "vector" in channels
    ready = wants_vector and not (isinstance(query_vector, Future) and not query_vector.done())
    try:
        [row] = graph.read(
            "retrieval/channels_scope_index", scope=plan.scope, lucene=own,
            fulltextIndex=scope_fulltext_index(plan.scope), limit=settings.retrieval_candidates,
            vector=_vector(query_vector) if ready else None,
            vectorIndex=space.scope_index(plan.scope),
            documentIds=named if leading else [], lead=_LEAD_PARAGRAPHS,
        )  # fmt: skip
        vector = [Candidate(p, d, float(score)) for p, d, score in row["vector"]]
        if wants_vector and not ready:
            vector = _candidates(graph.read(
                "retrieval/vector_paragraphs_scope_index", scope=plan.scope,
                vector=_vector(query_vector), limit=settings.retrieval_candidates,
                indexName=space.scope_index(plan.scope),
            ))  # fmt: skip
    except ClientError:  # an index dropped (the scope shrank) since its state was cached
        _forget_size(plan.scope)
        return None
    found: Channels = {}
    if "fulltext" in channels:
        ranked = [Candidate(p, d, float(score)) for p, d, score in row["fulltext"]]
        found["fulltext"] = sorted(ranked, key=lambda c: (-c.score, c.paragraph_id))
    if wants_vector:
        found["vector"] = vector
    if leading:
        found["knowledgePoint"] = _leads(named, row["leads"])
    seq = int(row["seq"])
    if "fulltext" not in channels:
        return ScopeChannels(seq, lucene, "none", found)
    if not own:  # no clause: nothing to search, reported as the exact path reports it
        return ScopeChannels(seq, lucene, "exact", found)
    return ScopeChannels(seq, own, "scope_index", found)


def _vector(query_vector: Sequence[float] | Future[list[float]] | None) -> list[float]:
    assert query_vector is not None
    return list(query_vector.result() if isinstance(query_vector, Future) else query_vector)


def channel_reads(
    graph: Graph,
    plan: QueryPlan,
    names: Sequence[NameMatch],
    terms: Sequence[str],
    phrases: Sequence[str],
    lucene: str,
    query_vector: Sequence[float] | Future[list[float]] | None,
    settings: PipelineSettings,
    channels: frozenset[str],
    space: EmbeddingSpace = DEFAULT_SPACE,
) -> tuple[str, str, str, Channels]:
    """The channels one statement each: exact search in small scopes, the shared vector index
    while a scope's own one is populating, and the reads that overlap the embedding."""
    limit = settings.retrieval_candidates
    found: Channels = {}
    fulltext_mode = "none"
    if "fulltext" in channels:
        lucene, fulltext_mode, found["fulltext"] = _fulltext(
            graph, plan.scope, terms, phrases, lucene, settings
        )
    # Before the wait for the question's vector: this read needs only the names.
    lead = _lead_candidates(graph, plan, names) if "knowledgePoint" in channels else None
    vector_mode = "none"
    if query_vector is not None and "vector" in channels:
        size = scope_size(graph, plan.scope, settings, space)
        vector = _vector(query_vector)
        if size.paragraphs <= settings.exact_vector_max_paragraphs:
            vector_mode = "exact"
            rows = graph.read(
                "retrieval/vector_paragraphs_exact", scope=plan.scope, vector=vector, limit=limit,
                property=space.vector_property,
            )  # fmt: skip
        elif size.own_index:
            vector_mode = "scope_index"
            rows = graph.read(
                "retrieval/vector_paragraphs_scope_index", scope=plan.scope, vector=vector,
                limit=limit, indexName=space.scope_index(plan.scope),
            )  # fmt: skip
        else:
            # The shared index ranks every scope; ask for enough that `limit` are this scope's.
            share = size.paragraphs / max(size.all_paragraphs, 1)
            candidates = min(
                settings.vector_max_candidates,
                max(limit, int(limit * settings.vector_oversample / max(share, 1e-9))),
            )
            vector_mode = f"index:{candidates}"
            rows = graph.read(
                "retrieval/vector_paragraphs_index", scope=plan.scope, vector=vector, limit=limit,
                candidates=candidates, indexName=space.index,
            )  # fmt: skip
        found["vector"] = _candidates(rows)
    if lead is not None:
        found["knowledgePoint"] = lead
    return lucene, fulltext_mode, vector_mode, found


def _fulltext(
    graph: Graph,
    scope: str,
    terms: Sequence[str],
    phrases: Sequence[str],
    lucene: str,
    settings: PipelineSettings,
) -> tuple[str, str, list[Candidate]]:
    """The full-text channel, scored with the scope's own statistics: (the Lucene query run,
    its mode, the candidates best first). A large scope whose own index is ONLINE is searched
    there; any other scope exactly (lexical.exact_fulltext), which also covers a large scope
    whose index is still populating or went away since the size was cached."""
    limit = settings.retrieval_candidates
    size = scope_size(graph, scope, settings)
    own = lucene_clauses(terms, phrases)
    if searches_own_fulltext(size, settings) and own:
        try:
            rows = graph.read(
                "retrieval/fulltext_paragraphs_scope_index", indexName=scope_fulltext_index(scope),
                lucene=own, scope=scope, limit=limit,
            )  # fmt: skip
        except ClientError:  # dropped (the scope shrank) since its state was cached
            _forget_size(scope)
        else:
            ranked = sorted(_candidates(rows), key=lambda c: (-c.score, c.paragraph_id))
            return own, "scope_index", ranked
    scored = exact_fulltext(graph, scope, lucene, query_clauses(terms, phrases), limit)
    return lucene, "exact", [Candidate(p, d, score) for p, d, score in scored]


def _lead_candidates(
    graph: Graph, plan: QueryPlan, names: Sequence[NameMatch]
) -> list[Candidate] | None:
    """The first paragraphs of the documents the question names, when names lead it."""
    documents = [n.document_id for n in names if n.document_id]
    if not documents or not names_lead(plan, names):
        return None
    rows = graph.read(
        "retrieval/document_lead_paragraphs", documentIds=documents, lead=_LEAD_PARAGRAPHS
    )
    return _leads(documents, [(r["paragraphId"], r["documentId"], r["ordinal"]) for r in rows])


def _leads(documents: Sequence[str], rows: Iterable[Sequence[Any]]) -> list[Candidate]:
    """Lead paragraphs [paragraphId, documentId, ordinal] in the order the names came, each
    document's in reading order, scored 1 / (1 + ordinal)."""
    order = {d: i for i, d in enumerate(documents)}
    ranked = sorted(rows, key=lambda r: (order[r[1]], r[2]))
    return [Candidate(p, d, 1.0 / (1 + int(ordinal))) for p, d, ordinal in ranked]


def _candidates(rows: Iterable[Mapping[str, Any]]) -> list[Candidate]:
    return [Candidate(r["paragraphId"], r["documentId"], float(r["score"])) for r in rows]
