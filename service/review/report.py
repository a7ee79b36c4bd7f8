"""The review's response, its trace and its answer record, as JSON-ready dicts (pure).

The trace follows the answer's where a reader of traces and records expects it (`traceId`,
`plan.scope`, `timingsMs`, `cypher`, `ragContextPack.replayId`); the context pack of a review is
its bound documents, whole, one fragment each (role `bound_document`): its record is linked to
every paragraph they hold, and goes stale when one of them changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from service.review.model import Binding, Finding, QuestionReview
from service.review.run import ReviewOutcome, overall_status, replay_id

__all__ = ["record_response", "review_response"]


def review_response(
    *,
    trace_id: str,
    binding: Binding,
    questions: Sequence[str],
    outcome: ReviewOutcome,
    limits: dict[str, int],
    timings_ms: dict[str, float],
    cypher: list[dict[str, Any]],
) -> dict[str, Any]:
    """The response of POST /v1/reviews, trace included. `limits`: the limits applied, by
    their camelCase names (maxUtf16Units first)."""
    results = outcome.results
    verified = sum(len(r.findings) for r in results)
    trace = {
        "traceId": trace_id,
        "kind": "review",
        "plan": {"scope": binding.scope, "kind": "review", "questions": len(questions),
                 "documents": len(binding.documents)},
        "review": {
            "method": outcome.method,
            "status": overall_status(results),
            "limits": limits,
            "documents": [
                {"documentId": d.id, "path": d.path, "version": d.version,
                 "contentHash": d.content_hash, "utf16Units": d.utf16_units,
                 "paragraphs": len(d.paragraphs)}
                for d in binding.documents
            ],
            "duplicateReferences": binding.duplicates,
            "unboundParagraphs": list(binding.unbound_paragraphs),
            "resolver": {
                "boundParagraphs": len(binding.paragraphs),
                "verifiedFindings": verified,
                "droppedFindings": sum(len(r.trace.get("dropped") or ()) for r in results),
            },
            "screenedSentences": outcome.screened,
            "llm": outcome.llm,
            "questions": [_question_trace(i, r) for i, r in enumerate(results)],
        },
        "ragContextPack": {
            "replayId": replay_id(binding, questions),
            "fragments": [
                {"id": f"bound:{d.id}", "role": "bound_document", "documentId": d.id,
                 "path": d.path, "startOffset": 0, "endOffset": len(d.source),
                 "version": d.version}
                for d in binding.documents
            ],
        },
        "timingsMs": {**timings_ms, "review": outcome.elapsed_ms},
        "cypher": cypher,
    }  # fmt: skip
    return {
        "reviewId": trace_id,
        "scope": binding.scope,
        "documents": [
            {"documentId": d.id, "path": d.path, "version": d.version, "utf16Units": d.utf16_units}
            for d in binding.documents
        ],
        "boundUtf16Units": binding.utf16_units,
        "limitUtf16Units": limits["maxUtf16Units"],
        "results": [
            {"question": r.question, "status": r.status,
             "findings": [_finding(f) for f in r.findings], "missing": list(r.missing),
             "method": r.method}
            for r in results
        ],
        "trace": trace,
    }  # fmt: skip


def record_response(response: dict[str, Any]) -> dict[str, Any]:
    """The review as an answer record takes it (service/records/model.py): `kind: review`, the
    overall status as an answer status, every finding as a citation with its document version,
    a compact evidence status; the whole response kept beside them."""
    trace = response["trace"]
    scope = response["scope"]
    versions = {d["documentId"]: d["version"] for d in response["documents"]}
    citations: dict[tuple[str, int, int], dict[str, Any]] = {}
    for result in response["results"]:
        for f in result["findings"]:
            citations.setdefault((f["documentId"], f["startOffset"], f["endOffset"]), {
                "scope": scope, "documentId": f["documentId"],
                "documentVersion": versions[f["documentId"]], "path": f["path"],
                "paragraphId": f["paragraphId"], "startOffset": f["startOffset"],
                "endOffset": f["endOffset"], "quote": f["quote"],
            })  # fmt: skip
    counts = {s: sum(1 for r in response["results"] if r["status"] == s)
              for s in ("ANSWERED", "PARTIAL", "NOT_FOUND")}  # fmt: skip
    return {
        **response,
        "kind": "review",
        "status": trace["review"]["status"],
        "citations": list(citations.values()),
        "evidenceStatus": {
            "scope": scope, "kind": "review", "method": trace["review"]["method"],
            "questions": len(response["results"]), "answered": counts["ANSWERED"],
            "partial": counts["PARTIAL"], "notFound": counts["NOT_FOUND"],
            "citations": len(citations), "replayId": trace["ragContextPack"]["replayId"],
        },
    }  # fmt: skip


def _finding(finding: Finding) -> dict[str, Any]:
    return {
        "paragraphId": finding.paragraph_id, "documentId": finding.document_id,
        "path": finding.path, "startOffset": finding.start_offset,
        "endOffset": finding.end_offset, "quote": finding.quote,
    }  # fmt: skip


def _question_trace(index: int, result: QuestionReview) -> dict[str, Any]:
    """The question's own trace, plus where its findings are (ids and offsets, not quotes)."""
    return {
        "index": index, "question": result.question, "method": result.method, **result.trace,
        "findings": [
            {"paragraphId": f.paragraph_id, "startOffset": f.start_offset,
             "endOffset": f.end_offset}
            for f in result.findings
        ],
    }  # fmt: skip
