"""What a draft says, built from the answer it escalates (pure: no I/O).

A draft quotes only what the answer observed: its citations first, then the context pack's
whole fragments, then the retrieval hits' spans, each an exact slice of its document's source,
so the people who keep the knowledge base see the closest evidence as it is written."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import Any

import msgspec

__all__ = [
    "ESCALATABLE",
    "ConflictQuote",
    "DraftContent",
    "EvidenceQuote",
    "content_hash",
    "draft_content",
    "escalation_offer",
]

# The statuses that leave the asker short of a full, current, single answer.
ESCALATABLE = frozenset({"abstained", "partial", "conflict", "stale"})
PREVIEW_ROUTE = "/v1/escalations/preview"


class EvidenceQuote(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    document_id: str
    document_version: int | None
    path: str
    heading_path: list[str]
    start_offset: int  # code points into the document's source, as citations
    end_offset: int
    quote: str  # source[startOffset:endOffset]
    source: str  # where the answer met it: citation, fragment, hit


class ConflictQuote(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    values: list[str]  # the contradicting values this statement takes part in
    document_id: str
    path: str
    start_offset: int
    end_offset: int
    quote: str


class DraftContent(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    """The draft exactly as the preview returns it; confirmation must send it back unchanged."""

    question: str
    scope: str
    answer_id: str
    answer_status: str
    missing_terms: list[str]  # the question's key terms no direct support covered
    reasons: list[str]  # why the answer fell short: the sufficiency review's failed checks
    evidence: list[EvidenceQuote]
    conflicts: list[ConflictQuote]
    note: str | None  # the asker's own words, if any


def escalation_offer(status: str) -> dict[str, str] | None:
    """What an answer's response says when its gap can be escalated (None: it cannot)."""
    if status not in ESCALATABLE:
        return None
    return {"reason": status, "preview": PREVIEW_ROUTE}


def content_hash(content: Any) -> str:
    """One hash per content, whatever the order of its JSON members."""
    return hashlib.sha256(msgspec.json.encode(content, order="sorted")).hexdigest()


def draft_content(
    response: Mapping[str, Any],
    *,
    query: str,
    scope: str,
    note: str | None,
    evidence_items: int,
    conflict_items: int,
) -> DraftContent:
    """`response`: the answer as the API returned it, its trace included."""
    trace = response.get("trace") or {}
    review = trace.get("ragSufficiencyReview") or {}
    pack = trace.get("ragContextPack") or {}
    fragments = [f for f in pack.get("fragments") or () if _exact(f)]
    return DraftContent(
        question=query,
        scope=scope,
        answer_id=str(trace.get("traceId", "")),
        answer_status=str(response.get("status", "")),
        missing_terms=[str(t) for t in review.get("missingTerms") or ()],
        reasons=[str(g["detail"]) for g in review.get("gates") or () if not g.get("passed")],
        evidence=_evidence(response, fragments, trace, evidence_items),
        conflicts=[
            ConflictQuote(
                values=[str(v) for v in f["conflictValues"]], document_id=f["documentId"],
                path=f["path"], start_offset=int(f["startOffset"]),
                end_offset=int(f["endOffset"]), quote=f["text"],
            )
            for f in fragments
            if f.get("conflictValues")
        ][:conflict_items],
        note=note,
    )  # fmt: skip


def _evidence(
    response: Mapping[str, Any],
    fragments: list[Mapping[str, Any]],
    trace: Mapping[str, Any],
    limit: int,
) -> list[EvidenceQuote]:
    hits = (trace.get("retrieval") or {}).get("hits") or ()
    candidates: Iterable[EvidenceQuote] = (
        *(_quote(c, c["quote"], "citation") for c in response.get("citations") or ()),
        *(_quote(f, f["text"], "fragment") for f in fragments if f.get("role") != "conflict"),
        *(_quote({**h, **h["span"]}, h["span"]["text"], "hit") for h in hits if h.get("span")),
    )
    out: list[EvidenceQuote] = []
    seen: list[tuple[str, int, int]] = []
    for quote in candidates:
        if len(out) == limit:
            break
        # A span inside one already quoted adds nothing (a citation inside its fragment).
        if any(d == quote.document_id and s <= quote.start_offset and quote.end_offset <= e
               for d, s, e in seen):  # fmt: skip
            continue
        seen.append((quote.document_id, quote.start_offset, quote.end_offset))
        out.append(quote)
    return out


def _quote(item: Mapping[str, Any], text: str, source: str) -> EvidenceQuote:
    return EvidenceQuote(
        document_id=str(item["documentId"]), document_version=item.get("documentVersion"),
        path=str(item["path"]), heading_path=[str(h) for h in item.get("headingPath") or ()],
        start_offset=int(item["startOffset"]), end_offset=int(item["endOffset"]), quote=text,
        source=source,
    )  # fmt: skip


def _exact(fragment: Mapping[str, Any]) -> bool:
    """A fragment whose text is its whole source slice (the budget may have cut others)."""
    span = int(fragment["endOffset"]) - int(fragment["startOffset"])
    return not fragment.get("truncated") and len(str(fragment.get("text", ""))) == span
