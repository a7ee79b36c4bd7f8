"""The public response's pieces and the trace of one answer: citations, the answer text, and
each stage's trace fields in camelCase (docs/architecture.md, "Trace fields")."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from service.answer.composer import Draft, DraftSentence
from service.answer.injection import screen_heading
from service.answer.judge import JudgeOutcome
from service.answer.sentences import EvidenceSentence
from service.answer.sufficiency import (
    SufficiencyReview,
)
from service.pipeline.augment import ProcedureSearch
from service.pipeline.context_pack import (
    RagContextPack,
)
from service.pipeline.graph_context import GraphContext
from service.pipeline.retrieval import Retrieval

__all__ = [
    "camel",
    "citations",
    "graph_trace",
    "knowledge_points",
    "pack_trace",
    "render",
    "retrieval_trace",
    "review_trace",
    "trace_id",
]


def render(draft: Draft) -> str:
    return " ".join(s.text for s in draft.sentences)


def citations(sentences: Sequence[DraftSentence], scope: str) -> list[dict[str, Any]]:
    seen: set[str] = set()
    out = []
    for sentence in sentences:
        for e in sentence.evidence:
            if e.citation_id in seen:
                continue
            seen.add(e.citation_id)
            out.append(citation(e, scope))
    return out


def review_trace(review: SufficiencyReview, outcome: JudgeOutcome | None) -> dict[str, Any]:
    data: dict[str, Any] = camel(review)
    data["gates"] = [camel(g) for g in review.gates]
    data["judge"] = None if outcome is None else camel(outcome)
    return data


def citation(evidence: EvidenceSentence, scope: str) -> dict[str, Any]:
    return {
        "citationId": evidence.citation_id,
        "scope": scope,  # a question without a scope may be answered from any readable one
        "fragmentId": evidence.fragment_id,
        "role": evidence.role,
        "documentId": evidence.document_id,
        "documentVersion": evidence.document_version,
        "path": evidence.path,
        # A heading is page text too: an instruction heading ("### SYSTEM OVERRIDE ###") would
        # reach the client beside the answer, so it is screened like the quote's sentences.
        "headingPath": [screen_heading(h) for h in evidence.heading_path],
        "startOffset": evidence.start,
        "endOffset": evidence.end,
        # UTF-16 offsets of the same slice, for clients that index strings by code units.
        "utf16Start": evidence.utf16_start,
        "utf16End": evidence.utf16_end,
        "startLine": evidence.line,
        "endLine": evidence.end_line,
        "quote": evidence.quote,
        # A converted document's place in its original: "manual.pdf, page 12", "faq.html#reset".
        "page": evidence.page,
        "anchor": evidence.anchor,
        "place": place(evidence.path, evidence.line, evidence.page, evidence.anchor),
    }


def place(path: str, line: int, page: int | None, anchor: str | None) -> str:
    """Where a reader finds the quote in the file they have: "manual.pdf, page 12",
    "faq.html#reset", or "guide.md, line 14" for a Markdown file."""
    name = path.rsplit("/", 1)[-1]
    if page is not None:
        return f"{name}, page {page}"
    if anchor:
        return f"{name}#{anchor}"
    return f"{name}, line {line}"


def knowledge_points(retrieval: Retrieval, context: GraphContext) -> list[dict[str, Any]]:
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


def retrieval_trace(retrieval: Retrieval) -> dict[str, Any]:
    return {
        "lucene": retrieval.lucene,
        "vectorMode": retrieval.vector_mode,
        "names": [camel(n) for n in retrieval.names],
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
        "segments": [camel(s) for s in retrieval.segments],
        "documents": [camel(d) for d in retrieval.ranked],
    }


def graph_trace(context: GraphContext) -> dict[str, Any]:
    return {
        "available": context.available,
        "error": context.error,
        "anchor": {
            "id": context.anchor_id,
            "title": context.anchor_title,
            "reason": context.anchor_reason,
        },
        "degreeProfile": context.degree,
        "predecessors": [camel(n) for n in context.predecessors],
        "successors": [camel(n) for n in context.successors],
        "diagnostics": camel(context.diagnostics) if context.diagnostics else None,
        "paths": list(context.paths),
    }


def evidence_status(
    scope: str,
    review: SufficiencyReview,
    context: GraphContext,
    recovery: Mapping[str, Any],
    citations: int,
    replay_id: str,
) -> dict[str, Any]:
    """The compact evidence status every response carries, trace or not: what a client shows
    beside the answer without downloading the trace."""
    graph = (
        "unavailable"
        if not context.available
        else ("available" if context.anchor_id is not None else "no_anchor")
    )
    return {
        "scope": scope,
        "evidence": review.status,  # sufficient | borderline | insufficient
        "degradation": review.degradation,  # none, or why the evidence falls short
        "citations": citations,
        "graph": graph,
        "recovered": bool(recovery.get("adopted")),  # a wider second reading was adopted
        "replayId": replay_id,
    }


def pack_trace(pack: RagContextPack, documents_read: Sequence[str]) -> dict[str, Any]:
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
            {**camel(f), "chars": f.chars, "tokensEstimate": f.tokens_estimate}
            for f in pack.fragments
        ],
        "sourceDecisions": [camel(d) for d in pack.decisions],
    }


def procedure_trace(search: ProcedureSearch | None) -> dict[str, Any] | None:
    """Where the whole procedure was looked for, every block weighed and why the one given (or
    none) was; None when the question looked for none."""
    if search is None:
        return None
    return {**camel(search), "weighed": [camel(w) for w in search.weighed]}


def camel(value: Any) -> Any:
    """A Struct as a camelCase JSON-ready dict."""
    data = msgspec.to_builtins(value)
    if isinstance(data, dict):
        return {camel_key(k): v for k, v in data.items()}
    return data


def camel_key(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(part.title() for part in rest)


def trace_id(query: str, scope: str, replay: str) -> str:
    digest = hashlib.sha256(f"{scope}\0{query}\0{replay}\0{time.time_ns()}".encode())
    return "t_" + digest.hexdigest()[:16]
