"""answer_question: the evidence path from question to response, one stage after another.

plan_query -> retrieve_spans -> build_graph_context -> augment_documents -> build_context_pack
-> (interim) review_coverage and draft_answer. The trace is assembled from what the stages
return, plus every Cypher statement the question ran (name, parameters, time, rows), so the
whole neighbour selection can be replayed in Neo4j Browser.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Protocol

import msgspec

from ingest.relation_labels import compact_key
from service.db.graph import Graph
from service.pipeline.augment import augment_documents
from service.pipeline.budgets import PipelineSettings
from service.pipeline.context_pack import RagContextPack, build_context_pack
from service.pipeline.draft import classify_failures, draft_answer, review_coverage
from service.pipeline.evidence import Fragment
from service.pipeline.graph_context import GraphContext, build_graph_context
from service.pipeline.plan import Depth, plan_query
from service.pipeline.retrieval import Retrieval, retrieve_spans

__all__ = ["QueryEmbedder", "QuestionError", "answer_question", "embed_in_background"]


class QuestionError(ValueError):
    """The question itself is unusable (empty, too long); the message says why."""


class QueryEmbedder(Protocol):
    def embed(self, texts: Sequence[str]) -> list[list[float]]: ...


def answer_question(
    graph: Graph,
    embedder: QueryEmbedder | None,
    query: str,
    *,
    scope: str,
    depth: Depth | None = None,
    top_k: int | None = None,
    settings: PipelineSettings | None = None,
) -> dict[str, Any]:
    settings = settings or PipelineSettings()
    if not query.strip():
        raise QuestionError("the question is empty")
    if len(query) > settings.max_query_chars:
        raise QuestionError(f"the question is longer than {settings.max_query_chars} characters")
    run = graph.child()
    timings: dict[str, float] = {}
    started = time.perf_counter()

    def lap(stage: str) -> None:
        nonlocal started
        now = time.perf_counter()
        timings[stage] = round((now - started) * 1000, 2)
        started = now

    plan = plan_query(query, scope, depth)
    lap("plan")
    vector = embed_in_background(embedder, plan.query) if embedder else None
    retrieval = retrieve_spans(run, plan, vector, settings, top_k=top_k)
    lap("retrieval")
    context = build_graph_context(run, plan, retrieval, settings)
    lap("graphContext")
    augmentation = augment_documents(run, plan, retrieval, context, settings)
    lap("augmentation")
    pack = build_context_pack(
        augmentation.fragments,
        plan.budget,
        observed_ids=augmentation.observed_ids,
        unavailable=augmentation.unavailable,
    )
    lap("contextPack")
    named = {compact_key(n.matched): n.id for n in retrieval.names}
    review = review_coverage(plan, pack.fragments, named, pack.decisions)
    answer = draft_answer(pack.fragments)
    failures = classify_failures(len(retrieval.hits), pack.decisions, context.error)
    status = "answered" if answer and review["status"] != "insufficient" else "abstained"
    if status == "abstained":
        answer = f"I found no evidence in scope {scope!r} that answers this question."
    lap("answer")

    citations = [_citation(f) for f in pack.fragments if f.role == "direct_support"]
    return {
        "answer": answer,
        "status": status,
        "assistantBlocks": [{"type": "answer", "text": answer}],
        "knowledgePoints": _knowledge_points(retrieval, context),
        "citations": citations,
        "structuredAnswer": {"directAnswer": answer, "profile": plan.intent},
        "trace": {
            "traceId": _trace_id(plan.query, scope, pack.replay_id),
            "plan": _camel(plan),
            "timingsMs": timings,
            "retrieval": _retrieval_trace(retrieval),
            "graphContext": _graph_trace(context),
            "ragContextPack": _pack_trace(pack, augmentation.documents_read),
            "ragSufficiencyReview": review,
            "ragRecovery": {
                "attempted": False,
                "reason": "recovery arrives with the answers stage",
            },
            "ragFailureClassifications": failures,
            "answerReleaseReview": {"method": "none_v0", "gates": []},
            "answerClaimCitations": [
                {"claim": c["quote"], "citationIds": [c["citationId"]]} for c in citations
            ],
            "cypher": [_camel(call) for call in run.calls],
        },
    }


# Query embeddings run beside the lexical retrieval reads; two workers bound the model's
# concurrent use by parallel requests (2 cores).
_QUERY_EMBEDDING = ThreadPoolExecutor(max_workers=2, thread_name_prefix="query-embedding")


def embed_in_background(embedder: QueryEmbedder, text: str) -> Future[list[float]]:
    """The question's embedding, computed while retrieval's lexical reads wait on Neo4j."""
    return _QUERY_EMBEDDING.submit(lambda: embedder.embed([text])[0])


def _citation(fragment: Fragment) -> dict[str, Any]:
    return {
        "citationId": fragment.citation_ids[0],
        "documentId": fragment.document_id,
        "path": fragment.path,
        "headingPath": list(fragment.heading_path),
        "startOffset": fragment.start_offset,
        "endOffset": fragment.end_offset,
        "startLine": fragment.start_line,
        "endLine": fragment.end_line,
        "quote": fragment.text,
    }


def _knowledge_points(retrieval: Retrieval, context: GraphContext) -> list[dict[str, Any]]:
    points: dict[str, dict[str, Any]] = {}
    for name in retrieval.names:
        points[name.id] = {"id": name.id, "title": name.title, "role": "named", "path": name.path}
    if context.anchor_id and context.anchor_id not in points:
        points[context.anchor_id] = {"id": context.anchor_id, "title": context.anchor_title,
                                     "role": "anchor", "path": None}  # fmt: skip
    for hit in retrieval.hits:
        for kp in hit.knowledge_point_ids:
            points.setdefault(kp, {"id": kp, "title": hit.title, "role": "hit", "path": hit.path})
    return list(points.values())


def _retrieval_trace(retrieval: Retrieval) -> dict[str, Any]:
    return {
        "lucene": retrieval.lucene,
        "vectorMode": retrieval.vector_mode,
        "names": [_camel(n) for n in retrieval.names],
        "hits": [
            {
                "documentId": h.document_id,
                "path": h.path,
                "paragraphId": h.paragraph_id,
                "score": h.score,
                "ranks": h.ranks,
                "headingPath": list(h.heading_path),
                "span": {"startOffset": h.span_start, "endOffset": h.span_end, "text": h.span_text},
                "citationId": h.citation_id,
            }
            for h in retrieval.hits
        ],
        "segments": [_camel(s) for s in retrieval.segments],
    }


def _graph_trace(context: GraphContext) -> dict[str, Any]:
    return {
        "available": context.available,
        "error": context.error,
        "anchor": {
            "id": context.anchor_id,
            "title": context.anchor_title,
            "reason": context.anchor_reason,
        },
        "degreeProfile": context.degree,
        "predecessors": [_camel(n) for n in context.predecessors],
        "successors": [_camel(n) for n in context.successors],
        "diagnostics": _camel(context.diagnostics) if context.diagnostics else None,
        "paths": list(context.paths),
    }


def _pack_trace(pack: RagContextPack, documents_read: Sequence[str]) -> dict[str, Any]:
    return {
        "replayId": pack.replay_id,
        "budget": {
            "profile": pack.budget.profile,
            "fragments": pack.budget.fragments,
            "fragmentChars": pack.budget.fragment_chars,
            "totalChars": pack.budget.total_chars,
        },
        "totalChars": pack.total_chars,
        "sourceBoundary": pack.source_boundary,
        "documentsRead": list(documents_read),
        "fragments": [
            {**_camel(f), "chars": f.chars, "tokensEstimate": f.tokens_estimate}
            for f in pack.fragments
        ],
        "sourceDecisions": [_camel(d) for d in pack.decisions],
    }


def _camel(value: Any) -> Any:
    """A Struct as a camelCase JSON-ready dict."""
    data = msgspec.to_builtins(value)
    if isinstance(data, dict):
        return {_camel_key(k): v for k, v in data.items()}
    return data


def _camel_key(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(part.title() for part in rest)


def _trace_id(query: str, scope: str, replay: str) -> str:
    digest = hashlib.sha256(f"{scope}\0{query}\0{replay}\0{time.time_ns()}".encode())
    return "t_" + digest.hexdigest()[:16]
