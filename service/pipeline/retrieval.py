"""retrieve_spans: relevant span extraction over paragraphs of one scope.

Three channels, fused with reciprocal rank fusion (RRF):
- full-text (Lucene BM25 over paragraph text and heading path, the scope required in Lucene,
  the question's terms expanded with the titles and aliases of the knowledge points it names);
- vector (exact cosine in small scopes, the HNSW index with oversampling in large ones);
- knowledge point (the lead paragraphs of documents describing a named knowledge point).
Each fused hit carries its best sentence span with exact source offsets and a stable citation id.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

import msgspec

from ingest.relation_labels import compact_key
from service.db.graph import Graph
from service.pipeline.budgets import PipelineSettings
from service.pipeline.plan import QueryPlan
from service.pipeline.spans import best_span, citation_id, relevant_segments
from service.scope import scope_key

__all__ = [
    "Hit",
    "NameMatch",
    "Retrieval",
    "fuse",
    "lucene_query",
    "match_names",
    "retrieve_spans",
]

Channel = Literal["fulltext", "vector", "knowledgePoint"]
EXACT_VECTOR_MAX_PARAGRAPHS = 20_000  # above this the approximate index is used
CHANNELS = frozenset({"fulltext", "vector", "knowledgePoint"})
_LUCENE_SPECIAL = re.compile(r'([+\-!(){}\[\]^"~*?:\\/]|&&|\|\|)')
_LEAD_PARAGRAPHS = 3
_MIN_NAME_CHARS = 3


class NameMatch(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    title: str
    matched: str  # the title or alias found in the question
    aliases: tuple[str, ...]
    document_id: str | None
    path: str | None
    operand: int | None  # index of the compare operand it resolves, if any


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


class Retrieval(msgspec.Struct, frozen=True, kw_only=True):
    hits: tuple[Hit, ...]
    names: tuple[NameMatch, ...]
    segments: tuple[Segment, ...]
    lucene: str
    vector_mode: str


def match_names(
    query: str, operands: Sequence[str], knowledge_points: Iterable[Mapping[str, Any]]
) -> list[NameMatch]:
    """Knowledge points whose id, title or alias occurs in the question (compact match, so
    'waterglass', 'water glass' and 'Water-Glass' are one name), longest names first."""
    text = compact_key(query)
    operand_keys = [compact_key(o) for o in operands]
    found: dict[str, NameMatch] = {}
    lengths: dict[str, int] = {}
    for kp in knowledge_points:
        for name in (kp["title"], *(kp["aliases"] or []), kp["id"]):
            key = compact_key(str(name))
            if len(key) < (_MIN_NAME_CHARS if key.isascii() else 2) or key not in text:
                continue
            if lengths.get(kp["id"], 0) >= len(key):
                continue
            operand = next(
                (i for i, o in enumerate(operand_keys) if key in o or (o and o in key)), None
            )
            lengths[kp["id"]] = len(key)
            found[kp["id"]] = NameMatch(
                id=kp["id"], title=kp["title"], matched=str(name),
                aliases=tuple(kp["aliases"] or ()),
                document_id=kp["documentId"], path=kp["path"], operand=operand,
            )  # fmt: skip
    # A name inside a longer matched name ('glass' in 'water glass') is not a separate match.
    keys = {i: compact_key(m.matched) for i, m in found.items()}
    kept = [
        m for i, m in found.items()
        if not any(keys[i] != keys[j] and keys[i] in keys[j] for j in found)
    ]  # fmt: skip
    return sorted(kept, key=lambda m: (-lengths[m.id], m.id))


def lucene_query(scope: str, terms: Sequence[str], phrases: Sequence[str]) -> str:
    """The scope is required; terms and phrases are optional clauses, all escaped."""
    clauses = [_escape(t) for t in terms if t.strip()]
    clauses += [f'"{_escape(p)}"' for p in phrases if p.strip() and " " in p.strip()]
    if not clauses:
        clauses = ["*:*"]
    return f"+scopeKey:{scope_key(scope)} +({' '.join(dict.fromkeys(clauses))})"


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


def retrieve_spans(
    graph: Graph,
    plan: QueryPlan,
    query_vector: Sequence[float] | None,
    settings: PipelineSettings,
    *,
    top_k: int | None = None,
    channels: frozenset[str] = CHANNELS,
) -> Retrieval:
    """`channels` limits the fusion to some of fulltext, vector, knowledgePoint (for ablations)."""
    kps = graph.read("retrieval/scope_knowledge_point_names", scope=plan.scope)
    names = match_names(plan.query, plan.operands, kps)
    expansions = [n.title for n in names] + [
        a for kp in kps if kp["id"] in {n.id for n in names} for a in (kp["aliases"] or [])
    ]
    expansion_terms = [t for e in expansions for t in re.findall(r"\w+", e.lower()) if e.isascii()]
    lucene = lucene_query(plan.scope, [*plan.terms, *expansion_terms], expansions)
    limit = settings.retrieval_candidates
    rankings: dict[str, list[str]] = {}
    if "fulltext" in channels:
        rankings["fulltext"] = [
            r["paragraphId"]
            for r in graph.read(
                "retrieval/fulltext_paragraphs", lucene=lucene, scope=plan.scope, limit=limit
            )
        ]
    vector_mode = "none"
    if query_vector is not None and "vector" in channels:
        size = graph.read("retrieval/scope_size", scope=plan.scope)[0]["paragraphs"]
        vector = list(query_vector)
        if size <= EXACT_VECTOR_MAX_PARAGRAPHS:
            vector_mode = "exact"
            rows = graph.read(
                "retrieval/vector_paragraphs_exact", scope=plan.scope, vector=vector, limit=limit
            )
        else:
            vector_mode = "index"
            rows = graph.read(
                "retrieval/vector_paragraphs_index", scope=plan.scope, vector=vector, limit=limit,
                candidates=limit * settings.vector_oversample,
            )  # fmt: skip
        rankings["vector"] = [r["paragraphId"] for r in rows]
    documents = [n.document_id for n in names if n.document_id]
    if documents and "knowledgePoint" in channels:
        rows = graph.read(
            "retrieval/document_lead_paragraphs", documentIds=documents, lead=_LEAD_PARAGRAPHS
        )
        order = {d: i for i, d in enumerate(documents)}
        rows.sort(key=lambda r: (order[r["documentId"]], r["ordinal"]))
        rankings["knowledgePoint"] = [r["paragraphId"] for r in rows]

    fused = fuse(rankings, settings.rrf_k)[: top_k or settings.top_k]
    details = {
        r["paragraphId"]: r
        for r in graph.read("retrieval/paragraphs_by_id", ids=[f[0] for f in fused])
    }
    hits = []
    for paragraph_id, score, ranks in fused:
        row = details.get(paragraph_id)
        if row is None:  # deleted between the two reads
            continue
        span = best_span(row["text"], plan.terms + tuple(expansion_terms))
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
        names=tuple(names),
        segments=tuple(_segments(hits)),
        lucene=lucene,
        vector_mode=vector_mode,
    )


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


def _escape(text: str) -> str:
    return _LUCENE_SPECIAL.sub(r"\\\1", text.strip())
