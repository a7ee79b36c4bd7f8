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
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import Future
from typing import Any

import msgspec
from neo4j.exceptions import ClientError

from service.db.graph import Graph, Row
from service.pipeline.background import read_in_background
from service.pipeline.lexical import exact_fulltext, query_clauses
from service.pipeline.plan import QueryPlan
from service.scope import scope_fulltext_index, scope_key, scope_label, scope_vector_index
from service.settings import PipelineSettings
from service.text.relation_labels import compact_key
from service.text.spans import best_span, citation_id, relevant_segments

__all__ = [
    "Hit",
    "NameMatch",
    "RankedDocument",
    "Retrieval",
    "fuse",
    "lucene_clauses",
    "lucene_query",
    "match_names",
    "retrieve_spans",
]

CHANNELS = frozenset({"fulltext", "vector", "knowledgePoint"})
_LUCENE_SPECIAL = re.compile(r'([+\-!(){}\[\]^"~*?:\\/]|&&|\|\|)')
# Bare AND / OR / NOT are operators to Lucene's parser ("AND OR" fails to parse); the analyzer
# lower-cases every term anyway, so the lower-case word matches the same paragraphs.
_LUCENE_OPERATOR = re.compile(r"\b(AND|OR|NOT)\b")
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


def match_names(
    query: str, operands: Sequence[str], knowledge_points: Iterable[Mapping[str, Any]]
) -> list[NameMatch]:
    """Knowledge points whose id, title or alias occurs in the question, longest names first.

    Latin names match whole words in compact form: a run of 1-4 consecutive question words whose
    letters equal the name's ('waterglass' = 'water glass' = 'Water-Glass'; a plural s/es is
    allowed), so 'Ear' never matches inside 'where are'. Names with CJK characters match as
    compact substrings, since CJK text has no spaces.
    """
    phrases = _word_runs(query)
    text = compact_key(query)
    operand_keys = [compact_key(o) for o in operands]
    found: dict[str, NameMatch] = {}
    lengths: dict[str, int] = {}
    for kp in knowledge_points:
        for name in (kp["title"], *(kp["aliases"] or []), kp["id"]):
            key = compact_key(str(name))
            if key.isascii():
                if len(key) < _MIN_NAME_CHARS or not (
                    key in phrases or key + "s" in phrases or key + "es" in phrases
                ):
                    continue
            elif len(key) < 2 or key not in text:
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


def _word_runs(text: str, longest: int = 4) -> set[str]:
    """Compact forms of every run of 1..`longest` consecutive words of the text."""
    words = [w.lower() for w in re.findall(r"[A-Za-z0-9]+", text)]
    return {
        "".join(words[i : i + n]) for n in range(1, longest + 1) for i in range(len(words) - n + 1)
    }


def name_query(scope: str, query: str) -> str:
    """Lucene query for knowledge point names: the question's words, the compact forms of its
    2-4 word runs (matching nameKeys), and its CJK runs."""
    runs = sorted(_word_runs(query) - set(re.findall(r"[a-z0-9]+", query.lower())))
    words = re.findall(r"[A-Za-z0-9]+|[^\W\dA-Za-z_]+", query)
    return lucene_query(scope, [*words, *runs], [])


class ScopeSize(msgspec.Struct, frozen=True):
    paragraphs: int  # in the scope
    all_paragraphs: int  # in the database
    own_index: bool  # the scope's own vector index is ONLINE (ingest/scope_index.py)
    own_fulltext_index: bool = False  # the scope's own full-text index is ONLINE


_SIZES: dict[str, tuple[float, ScopeSize]] = {}  # scope -> (time read, size)
_SIZES_TTL_S = 60.0
_SIZES_MAX_SCOPES = 1024


def _scope_size(graph: Graph, scope: str, settings: PipelineSettings) -> ScopeSize:
    """Cached for a minute: only used to choose exact, own-index or shared-index search (a
    stale size never makes full-text scores inexact: the exact statement counts the scope
    itself, and a missing own index falls back to it)."""
    now = time.monotonic()
    cached = _SIZES.get(scope)
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
        and any(
            r["state"] == "ONLINE"
            for r in graph.read("scope/vector_index_state", indexName=scope_vector_index(scope))
        )
    )
    own_fulltext = (
        complete
        and in_scope > settings.exact_fulltext_max_paragraphs
        and any(
            r["state"] == "ONLINE"
            for r in graph.read("scope/fulltext_index_state", indexName=scope_fulltext_index(scope))
        )
    )
    if len(_SIZES) >= _SIZES_MAX_SCOPES:
        _SIZES.clear()
    _SIZES[scope] = (now, ScopeSize(in_scope, int(row["allParagraphs"]), own, own_fulltext))
    return _SIZES[scope][1]


def lucene_query(scope: str, terms: Sequence[str], phrases: Sequence[str]) -> str:
    """The scope is required; terms and phrases are optional clauses, all escaped."""
    return f"+scopeKey:{scope_key(scope)} +({lucene_clauses(terms, phrases) or '*:*'})"


def lucene_clauses(terms: Sequence[str], phrases: Sequence[str]) -> str:
    """Terms and phrases as optional Lucene clauses, all escaped ('' when there are none); the
    query of a scope's own full-text index, which holds no other scope."""
    clauses = [_escape(t) for t in terms if t.strip()]
    clauses += [
        f'"{_escape(p)}"' for p in phrases if p.strip() and (" " in p.strip() or not p.isascii())
    ]
    return " ".join(dict.fromkeys(clauses))


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


class Candidate(msgspec.Struct, frozen=True):
    paragraph_id: str
    document_id: str
    score: float  # the channel's own score (BM25, cosine, or 1.0 for named documents)


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
) -> Retrieval:
    """`query_vector` may be a Future: the question's embedding then computes while the name
    channel, the full-text channel and the named documents' lead paragraphs are read (they wait on
    Neo4j, the model on the CPU). With the vector at hand, a large scope's HNSW search runs beside
    the name read and full-text and leads come in one statement (_early_vector_read, _one_read).
    `channels` limits the fusion to some of fulltext, vector, knowledgePoint (for ablations)."""
    vector_read = _early_vector_read(graph, plan, query_vector, settings, channels)
    kps = graph.read(
        "retrieval/knowledge_point_candidates",
        lucene=name_query(plan.scope, plan.query),
        scope=plan.scope,
        limit=settings.name_candidates,
    )
    names = match_names(plan.query, plan.operands, kps)
    expansions = [n.title for n in names] + [
        a for kp in kps if kp["id"] in {n.id for n in names} for a in (kp["aliases"] or [])
    ]
    expansion_terms = [t for e in expansions for t in re.findall(r"\w+", e.lower()) if e.isascii()]
    lucene = lucene_query(plan.scope, [*plan.terms, *expansion_terms], expansions)
    terms = [*plan.terms, *expansion_terms]
    combined = (
        _one_read(graph, plan, names, terms, expansions, lucene, vector_read, settings, channels)
        if vector_read is not None
        else None
    )
    if combined is not None:
        lucene, fulltext_mode, vector_mode, found = combined
    else:
        lucene, fulltext_mode, vector_mode, found = _channel_reads(
            graph, plan, names, terms, expansions, lucene, query_vector, settings, channels
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


Channels = dict[str, list["Candidate"]]


def _early_vector_read(
    graph: Graph,
    plan: QueryPlan,
    query_vector: Sequence[float] | Future[list[float]] | None,
    settings: PipelineSettings,
    channels: frozenset[str],
) -> Future[list[Row]] | None:
    """A large scope whose own indexes are complete, with the question's vector at hand: its
    HNSW search starts now, beside the name read it does not depend on. None otherwise (while
    the embedding still computes, the name, full-text and lead reads run during that wait
    instead, in _channel_reads)."""
    if query_vector is None or "vector" not in channels:
        return None
    if isinstance(query_vector, Future) and not query_vector.done():
        return None
    size = _scope_size(graph, plan.scope, settings)
    large = size.paragraphs > max(
        settings.exact_vector_max_paragraphs, settings.exact_fulltext_max_paragraphs
    )
    if not (large and size.own_index and size.own_fulltext_index):
        return None
    vector = list(query_vector.result() if isinstance(query_vector, Future) else query_vector)
    return read_in_background(
        graph, "retrieval/vector_paragraphs_scope_index", scope=plan.scope, vector=vector,
        limit=settings.retrieval_candidates, indexName=scope_vector_index(plan.scope),
    )  # fmt: skip


def _one_read(
    graph: Graph,
    plan: QueryPlan,
    names: Sequence[NameMatch],
    terms: Sequence[str],
    phrases: Sequence[str],
    lucene: str,
    vector_read: Future[list[Row]],
    settings: PipelineSettings,
    channels: frozenset[str],
) -> tuple[str, str, str, Channels] | None:
    """The full-text and lead channels of a large scope in one statement
    (cypher/retrieval/channels_scope_index.cypher), with the vector search already running:
    (the Lucene query, full-text mode, vector mode, the channels' candidates). None when an
    index went away since the scope's state was cached, or the question has no full-text
    clause: then the per-channel reads answer, as for other scopes."""
    own = lucene_clauses(terms, phrases) if "fulltext" in channels else ""
    if "fulltext" in channels and not own:
        return None  # no clause: the exact statement answers (with nothing), as before
    named = [n.document_id for n in names if n.document_id]
    leading = "knowledgePoint" in channels and bool(named) and _names_lead(plan, names)
    try:
        [row] = graph.read(
            "retrieval/channels_scope_index", scope=plan.scope, lucene=own,
            fulltextIndex=scope_fulltext_index(plan.scope), limit=settings.retrieval_candidates,
            documentIds=named if leading else [], lead=_LEAD_PARAGRAPHS,
        )  # fmt: skip
        vector_rows = vector_read.result()
    except ClientError:  # an index dropped (the scope shrank) since its state was cached
        _SIZES.pop(plan.scope, None)
        return None
    found: Channels = {}
    if "fulltext" in channels:
        ranked = [Candidate(p, d, float(score)) for p, d, score in row["fulltext"]]
        found["fulltext"] = sorted(ranked, key=lambda c: (-c.score, c.paragraph_id))
    found["vector"] = _candidates(vector_rows)
    if leading:
        found["knowledgePoint"] = _leads(named, row["leads"])
    if "fulltext" not in channels:
        return lucene, "none", "scope_index", found
    return own, "scope_index", "scope_index", found


def _channel_reads(
    graph: Graph,
    plan: QueryPlan,
    names: Sequence[NameMatch],
    terms: Sequence[str],
    phrases: Sequence[str],
    lucene: str,
    query_vector: Sequence[float] | Future[list[float]] | None,
    settings: PipelineSettings,
    channels: frozenset[str],
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
        size = _scope_size(graph, plan.scope, settings)
        vector = list(query_vector.result() if isinstance(query_vector, Future) else query_vector)
        if size.paragraphs <= settings.exact_vector_max_paragraphs:
            vector_mode = "exact"
            rows = graph.read(
                "retrieval/vector_paragraphs_exact", scope=plan.scope, vector=vector, limit=limit
            )
        elif size.own_index:
            vector_mode = "scope_index"
            rows = graph.read(
                "retrieval/vector_paragraphs_scope_index", scope=plan.scope, vector=vector,
                limit=limit, indexName=scope_vector_index(plan.scope),
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
                candidates=candidates,
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
    size = _scope_size(graph, scope, settings)
    own = lucene_clauses(terms, phrases)
    if size.paragraphs > settings.exact_fulltext_max_paragraphs and size.own_fulltext_index and own:
        try:
            rows = graph.read(
                "retrieval/fulltext_paragraphs_scope_index", indexName=scope_fulltext_index(scope),
                lucene=own, scope=scope, limit=limit,
            )  # fmt: skip
        except ClientError:  # dropped (the scope shrank) since its state was cached
            _SIZES.pop(scope, None)
        else:
            ranked = sorted(_candidates(rows), key=lambda c: (-c.score, c.paragraph_id))
            return own, "scope_index", ranked
    scored = exact_fulltext(graph, scope, lucene, query_clauses(terms, phrases), limit)
    return lucene, "exact", [Candidate(p, d, score) for p, d, score in scored]


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


def _lead_candidates(
    graph: Graph, plan: QueryPlan, names: Sequence[NameMatch]
) -> list[Candidate] | None:
    """The first paragraphs of the documents the question names, when names lead it."""
    documents = [n.document_id for n in names if n.document_id]
    if not documents or not _names_lead(plan, names):
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


def _names_lead(plan: QueryPlan, names: Sequence[NameMatch]) -> bool:
    """The knowledge-point channel joins the fusion only when a named concept is what the
    question is about: a definition, or names covering at least half of the key terms. A short
    title that merely occurs in a longer question ('Clock' in a question about the display)
    only expands the full-text query."""
    if plan.intent in ("definition", "compare"):
        return True
    named = {t for n in names for t in re.findall(r"\w+", compact_key(n.matched))}
    covered = [
        t
        for t in plan.terms
        if compact_key(t) in named or any(compact_key(t) in compact_key(n.matched) for n in names)
    ]
    return bool(plan.terms) and len(covered) * 2 >= len(plan.terms)


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
    escaped = _LUCENE_SPECIAL.sub(r"\\\1", text.strip())
    return _LUCENE_OPERATOR.sub(lambda match: match.group(1).lower(), escaped)
