"""retrieve_spans: relevant span extraction over paragraphs of one scope.

Three channels, fused by `PipelineSettings.fusion`: "score" (the default) min-max normalises each
channel's scores within the question and adds them with the channel weights (vector 0.6,
full-text 0.4, knowledge point 0.2); "rrf" is weighted reciprocal rank fusion (see
`fuse_channels`). The channels:
- full-text (BM25 over paragraph text and heading path, the question's terms expanded with the
  titles and aliases of the knowledge points it names), scored with the scope's own statistics:
  exactly by the service in small scopes (service/pipeline/lexical.py), in the scope's own
  Lucene index in large ones, so other scopes never change a scope's full-text scores;
- vector (exact cosine in small scopes; in large ones the scope's own HNSW index, or, until it
  is ONLINE, the shared index with oversampling);
- knowledge point (the lead paragraphs of documents describing a named knowledge point).
Each fused hit carries its best sentence span with exact source offsets and a stable citation id.
Which statements read each channel is channels.py; the names a question holds, names.py.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from typing import Any

import msgspec

from service.db.graph import Graph
from service.embedding_space import DEFAULT_SPACE, EmbeddingSpace
from service.pipeline.channels import (
    CHANNELS,
    Candidate,
    ScopeChannels,
    channel_reads,
    indexed_scope,
    scope_channels,
    scope_size,
)
from service.pipeline.lucene import lucene_query
from service.pipeline.name_cache import cached_names, forget_names
from service.pipeline.names import NameMatch, match_names, name_query
from service.pipeline.plan import QueryPlan
from service.settings import PipelineSettings
from service.text.spans import best_span, citation_id, relevant_segments

__all__ = [
    "Hit",
    "RankedDocument",
    "Retrieval",
    "fuse",
    "retrieve_spans",
]


class Hit(msgspec.Struct, frozen=True, kw_only=True):
    paragraph_id: str
    document_id: str
    path: str
    title: str
    kind: str
    text: str
    ordinal: int
    heading_path: tuple[str, ...]
    start_offset: int
    end_offset: int
    start_line: int
    end_line: int
    knowledge_point_ids: tuple[str, ...]
    score: float
    ranks: dict[str, int]
    span_start: int  # absolute source offsets of the best sentence span
    span_end: int
    span_text: str
    citation_id: str


class Segment(msgspec.Struct, frozen=True):
    document_id: str
    paragraph_ids: tuple[str, ...]
    score: float


class RankedDocument(msgspec.Struct, frozen=True, kw_only=True):
    document_id: str
    path: str
    title: str
    score: float  # the fused document score


class Retrieval(msgspec.Struct, frozen=True, kw_only=True):
    hits: tuple[Hit, ...]  # the evidence: paragraphs of the best-fused documents, best first
    documents: tuple[tuple[str, float], ...]  # the fused document ranking (id, score), all of it
    # Its first top_k documents with their paths: the hits come from at most
    # `evidence_documents` documents, a client still sees the documents ranked after them.
    ranked: tuple[RankedDocument, ...] = ()
    names: tuple[NameMatch, ...]
    segments: tuple[Segment, ...]
    lucene: str
    vector_mode: str
    # "exact": BM25 with the scope's statistics computed by the service (small scopes, and large
    # ones until their own index is ONLINE); "scope_index": the scope's own Lucene index.
    fulltext_mode: str = "none"


def fuse(rankings: Mapping[str, Sequence[str]], k: int) -> list[tuple[str, float, dict[str, int]]]:
    """Reciprocal rank fusion: score = sum 1/(k + rank) over the channels that rank the item."""
    scores: dict[str, float] = {}
    ranks: dict[str, dict[str, int]] = {}
    for channel, ids in rankings.items():
        for rank, item in enumerate(dict.fromkeys(ids), start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
            ranks.setdefault(item, {})[channel] = rank
    return sorted(
        ((item, score, ranks[item]) for item, score in scores.items()),
        key=lambda row: (-row[1], row[0]),
    )


class Fused(msgspec.Struct, frozen=True):
    paragraph_id: str
    document_id: str
    score: float
    document_score: float
    ranks: dict[str, int]


def fuse_channels(
    channels: Mapping[str, Sequence[Candidate]],
    weights: Mapping[str, float],
    *,
    method: str = "score",
    rrf_k: int = 60,
) -> list[Fused]:
    """Fuse the channels at the document level, then order paragraphs inside that ranking.

    Documents are ranked first (a document counts with its best paragraph in each channel), so
    one long document cannot crowd out the others and a section whose evidence is spread over
    several paragraphs still ranks as one. Then every ranked document contributes its best
    paragraph, in document order, followed by the remaining paragraphs by their own score.

    method "score": per channel, scores are min-max normalised within this question and
    combined with the channel weights (keeps how much better a hit is, which ranks discard).
    method "rrf": weighted reciprocal rank fusion, sum w / (k + rank).
    """
    paragraph_scores: dict[str, float] = {}
    document_scores: dict[str, float] = {}
    ranks: dict[str, dict[str, int]] = {}
    owner: dict[str, str] = {}
    for channel, candidates in channels.items():
        weight = weights.get(channel, 1.0)
        unique = list({c.paragraph_id: c for c in candidates}.values())
        best_per_document: dict[str, float] = {}
        document_rank: dict[str, int] = {}
        for rank, c in enumerate(unique, start=1):
            owner[c.paragraph_id] = c.document_id
            ranks.setdefault(c.paragraph_id, {})[channel] = rank
            best_per_document[c.document_id] = max(
                best_per_document.get(c.document_id, c.score), c.score
            )
            document_rank.setdefault(c.document_id, len(document_rank) + 1)
        if method == "rrf":
            for rank, c in enumerate(unique, start=1):
                paragraph_scores[c.paragraph_id] = paragraph_scores.get(
                    c.paragraph_id, 0.0
                ) + weight / (rrf_k + rank)
            for document, rank in document_rank.items():
                document_scores[document] = document_scores.get(document, 0.0) + weight / (
                    rrf_k + rank
                )
            continue
        for c, value in zip(unique, _min_max([c.score for c in unique]), strict=True):
            paragraph_scores[c.paragraph_id] = (
                paragraph_scores.get(c.paragraph_id, 0.0) + weight * value
            )
        documents = list(best_per_document)
        for document, value in zip(
            documents, _min_max([best_per_document[d] for d in documents]), strict=True
        ):
            document_scores[document] = document_scores.get(document, 0.0) + weight * value
    by_document: dict[str, list[str]] = {}
    for paragraph in sorted(paragraph_scores, key=lambda p: (-paragraph_scores[p], p)):
        by_document.setdefault(owner[paragraph], []).append(paragraph)
    document_order = sorted(by_document, key=lambda d: (-document_scores.get(d, 0.0), d))
    leads = [by_document[d][0] for d in document_order]
    rest = sorted(
        (p for d in document_order for p in by_document[d][1:]),
        key=lambda p: (-paragraph_scores[p], p),
    )
    return [
        Fused(
            p,
            owner[p],
            round(paragraph_scores[p], 6),
            round(document_scores.get(owner[p], 0.0), 6),
            ranks[p],
        )
        for p in (*leads, *rest)
    ]


def _min_max(values: Sequence[float]) -> list[float]:
    """Scaled to [0, 1] within one channel of one question; a single value becomes 1."""
    if not values:
        return []
    low, high = min(values), max(values)
    if high <= low:
        return [1.0 for _ in values]
    return [(v - low) / (high - low) for v in values]


def retrieve_spans(
    graph: Graph,
    plan: QueryPlan,
    query_vector: Sequence[float] | Future[list[float]] | None,
    settings: PipelineSettings,
    *,
    top_k: int | None = None,
    channels: frozenset[str] = CHANNELS,
    space: EmbeddingSpace = DEFAULT_SPACE,
) -> Retrieval:
    """`query_vector` may be a Future: the question's embedding then computes while the names,
    the full-text channel and the named documents' lead paragraphs are read (they wait on Neo4j,
    the model on the CPU). A large scope with its own indexes takes its names from this
    process's cache (name_cache.py) and reads its channels in one statement, the HNSW search
    included when the vector is at hand (scope_channels); other scopes read the names by
    full-text search and each channel apart (channel_reads).
    `channels` limits the fusion to some of fulltext, vector, knowledgePoint (for ablations).
    `space`: the model that made `query_vector` (service/embedding_space.py)."""
    size = scope_size(graph, plan.scope, settings, space)
    indexed = indexed_scope(size, settings)
    read: ScopeChannels | None = None
    cache = cached_names(graph, plan.scope, settings) if indexed else None
    if cache is not None:
        known = cache.candidates(plan.query)
        names = match_names(plan.query, plan.operands, known)
        expansions, terms, lucene = _expanded(plan, names, known)
        read = scope_channels(
            graph, plan, names, terms, expansions, lucene, query_vector, settings, channels, space
        )
        if read is not None and read.seq != cache.seq:  # the names may have changed since
            forget_names(graph, plan.scope, cache.seq)
            read = None
    if read is None:
        kps = graph.read(
            "retrieval/knowledge_point_candidates",
            lucene=name_query(plan.scope, plan.query),
            scope=plan.scope,
            limit=settings.name_candidates,
        )
        names = match_names(plan.query, plan.operands, kps)
        expansions, terms, lucene = _expanded(plan, names, kps)
        if indexed:
            read = scope_channels(
                graph, plan, names, terms, expansions, lucene, query_vector, settings, channels,
                space,
            )  # fmt: skip
    if read is not None:
        lucene, fulltext_mode, vector_mode, found = (
            read.lucene, read.fulltext_mode, "scope_index" if "vector" in read.found else "none",
            read.found,
        )  # fmt: skip
    else:
        lucene, fulltext_mode, vector_mode, found = channel_reads(
            graph, plan, names, terms, expansions, lucene, query_vector, settings, channels, space
        )

    weights = {
        "fulltext": settings.fulltext_weight,
        "vector": settings.vector_weight,
        "knowledgePoint": settings.knowledge_point_weight,
    }
    ranking = fuse_channels(found, weights, method=settings.fusion, rrf_k=settings.rrf_k)
    operands = [n.document_id for n in names if n.operand is not None and n.document_id]
    fused = _interleave(_evidence(ranking, settings, operands), operands)[: top_k or settings.top_k]
    ids = [f.paragraph_id for f in fused]
    documents = tuple(dict.fromkeys((f.document_id, f.document_score) for f in ranking))
    listed = documents[: top_k or settings.top_k]
    [found_details] = graph.read(
        "retrieval/hit_details", ids=ids, documentIds=[d for d, _ in listed]
    )
    details = {r["paragraphId"]: r for r in found_details["paragraphs"]}
    paths = {r["documentId"]: r for r in found_details["documents"]}
    hits = []
    for item in fused:
        paragraph_id, score, ranks = item.paragraph_id, item.score, item.ranks
        row = details.get(paragraph_id)
        if row is None:  # deleted between the two reads
            continue
        span = best_span(row["text"], tuple(terms))
        start = row["startOffset"] + span.start
        hits.append(
            Hit(
                paragraph_id=paragraph_id, document_id=row["documentId"], path=row["path"],
                title=row["title"] or "", kind=row["kind"], text=row["text"],
                ordinal=row["ordinal"], heading_path=tuple(row["headingPath"] or ()),
                start_offset=row["startOffset"], end_offset=row["endOffset"],
                start_line=row["startLine"], end_line=row["endLine"],
                knowledge_point_ids=tuple(row["knowledgePointIds"]),
                score=round(score, 6), ranks=ranks,
                span_start=start, span_end=row["startOffset"] + span.end, span_text=span.text,
                citation_id=citation_id(paragraph_id, span.start, span.end),
            )
        )  # fmt: skip
    return Retrieval(
        hits=tuple(hits),
        documents=documents,
        ranked=tuple(
            RankedDocument(
                document_id=d,
                path=paths[d]["path"],
                title=paths[d]["title"] or "",
                score=round(score, 6),
            )
            for d, score in listed
            if d in paths
        ),
        names=tuple(names),
        segments=tuple(_segments(hits)),
        lucene=lucene,
        vector_mode=vector_mode,
        fulltext_mode=fulltext_mode,
    )


def _expanded(
    plan: QueryPlan, names: Sequence[NameMatch], kps: Sequence[Mapping[str, Any]]
) -> tuple[list[str], list[str], str]:
    """The named knowledge points' titles and aliases (phrases), the full-text terms with their
    words added, and the Lucene query of the shared index."""
    named = {n.id for n in names}
    expansions = [n.title for n in names] + [
        a for kp in kps if kp["id"] in named for a in (kp["aliases"] or [])
    ]
    expansion_terms = [t for e in expansions for t in re.findall(r"\w+", e.lower()) if e.isascii()]
    terms = [*plan.terms, *plan.forms, *expansion_terms]
    return expansions, terms, lucene_query(plan.scope, terms, expansions)


def _evidence(
    ranking: Sequence[Fused], settings: PipelineSettings, required: Sequence[str] = ()
) -> list[Fused]:
    """Depth in the best documents rather than one paragraph from each of many: the paragraphs
    of the top documents (at most `evidence_documents`, each fused to at least
    `evidence_document_share` of the best document's score), in ranking order. `required`
    documents (those of compare operands) are always among them when they have a hit."""
    if not ranking:
        return []
    floor = settings.evidence_document_share * max(f.document_score for f in ranking)
    ranked = {f.document_id for f in ranking}
    chosen: list[str] = [d for d in dict.fromkeys(required) if d in ranked]
    for f in ranking:
        if f.document_score >= floor and f.document_id not in chosen:
            chosen.append(f.document_id)
        if len(chosen) == settings.evidence_documents:
            break
    return [f for f in ranking if f.document_id in chosen]


def _interleave(fused: Sequence[Fused], documents: Sequence[str]) -> list[Fused]:
    """Compare questions: alternate between the operands' documents, so both sides reach the
    evidence before the top_k cut; other documents follow."""
    if len(set(documents)) < 2:
        return list(fused)
    queues = [[f for f in fused if f.document_id == d] for d in dict.fromkeys(documents)]
    mixed = [q[i] for i in range(max(map(len, queues))) for q in queues if i < len(q)]
    return mixed + [f for f in fused if f.document_id not in set(documents)]


def _segments(hits: Sequence[Hit]) -> list[Segment]:
    """Runs of adjacent relevant paragraphs inside one document (dsRAG-style segments)."""
    by_document: dict[str, list[Hit]] = {}
    for hit in hits:
        by_document.setdefault(hit.document_id, []).append(hit)
    segments = []
    for document_id, doc_hits in by_document.items():
        if len(doc_hits) < 2:
            continue
        ordered = sorted(doc_hits, key=lambda h: h.ordinal)
        first, last = ordered[0].ordinal, ordered[-1].ordinal
        score_at = {h.ordinal: h.score for h in ordered}
        scores = [score_at.get(o, 0.0) for o in range(first, last + 1)]
        threshold = min(score_at.values()) / 2
        ids = {h.ordinal: h.paragraph_id for h in ordered}
        for seg in relevant_segments(scores, threshold=threshold):
            covered = tuple(
                ids[o] for o in range(first + seg.first, first + seg.last + 1) if o in ids
            )
            if len(covered) >= 2:
                segments.append(Segment(document_id, covered, round(seg.score, 6)))
    return segments
