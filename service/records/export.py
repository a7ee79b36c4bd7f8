"""What a record exports and what a replay reports (pure: over a stored record and, for replay,
the new response)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.records.store import RecordDetail

__all__ = ["EXPORT_FORMAT", "export_bundle", "replay_report"]

EXPORT_FORMAT = "kgs-answer-export/1"


def export_bundle(detail: RecordDetail) -> dict[str, Any]:
    """A self-contained JSON bundle: the question, the answer, each citation with its exact quote
    and the version of its document then, the context pack, the reviews, and every Cypher
    statement with its parameters (the whole trace is kept too)."""
    response, trace = detail.response, detail.stored.trace
    versions = {d["documentId"]: d for d in detail.documents}
    citations = [
        {**c, "documentVersion": versions.get(c["documentId"], {}).get("version"),
         "contentHash": versions.get(c["documentId"], {}).get("contentHash")}
        for c in response.get("citations") or ()
    ]  # fmt: skip
    return {
        "format": EXPORT_FORMAT,
        "traceId": detail.stored.trace_id,
        "createdAt": detail.stored.created_at,
        "keyName": detail.key_name,
        "question": detail.stored.query,
        "request": detail.request,
        "scope": detail.stored.scope,
        "status": response.get("status"),
        "answer": response.get("answer"),
        "evidenceStatus": response.get("evidenceStatus"),
        "citations": citations,
        "stale": detail.stored.stale,
        "staleReason": detail.stale_reason,
        "documents": list(detail.documents),
        "contextPack": trace.get("ragContextPack"),
        "reviews": {
            "sufficiency": trace.get("ragSufficiencyReview"),
            "recovery": trace.get("ragRecovery"),
            "release": trace.get("answerReleaseReview"),
            "claims": trace.get("answerClaimCitations"),
        },
        "cypher": trace.get("cypher"),
        "trace": trace,
    }


def replay_report(detail: RecordDetail, again: Mapping[str, Any]) -> dict[str, Any]:
    """What changed between the recorded answer and the same question asked again: replay id,
    status, the context pack's fragments and the citations, and the documents changed since."""
    before, after = detail.response, again
    old = _fragments(before)
    new = _fragments(after)
    old_quotes = [c["quote"] for c in before.get("citations") or ()]
    new_quotes = [c["quote"] for c in after.get("citations") or ()]
    changed = [
        {"documentId": d["documentId"], "path": d["path"], "version": d["version"],
         "currentVersion": d["currentVersion"],
         "removed": d["currentContentHash"] is None}
        for d in detail.documents
        if d["currentContentHash"] != d["contentHash"]
    ]  # fmt: skip
    return {
        "traceId": detail.stored.trace_id,
        "replayTraceId": after["trace"]["traceId"],
        "sameReplayId": _replay_id(before) == _replay_id(after),
        "replayId": {"before": _replay_id(before), "after": _replay_id(after)},
        "status": {"before": before.get("status"), "after": after.get("status"),
                   "changed": before.get("status") != after.get("status")},
        "evidence": {"added": [new[i] for i in new if i not in old],
                     "removed": [old[i] for i in old if i not in new]},
        "citations": {"added": [q for q in new_quotes if q not in old_quotes],
                      "removed": [q for q in old_quotes if q not in new_quotes]},
        "documentsChanged": changed,
    }  # fmt: skip


def _replay_id(response: Mapping[str, Any]) -> str | None:
    return (response.get("evidenceStatus") or {}).get("replayId")


def _fragments(response: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    pack = (response.get("trace") or {}).get("ragContextPack") or {}
    return {
        f["id"]: {"id": f["id"], "role": f["role"], "path": f["path"],
                  "startOffset": f["startOffset"], "endOffset": f["endOffset"]}
        for f in pack.get("fragments") or ()
    }  # fmt: skip
