"""The sections of a scope's health report that read the graph as it is: expired or superseded
pages, knowledge points no page describes, relations to a point nothing describes, paragraphs
repeated nearly word for word in other documents, and knowledge gaps still open.

Every section is one keyset page: rows ordered by a stable string key, those after the caller's
cursor, at most `limit` of them, and the key to pass back for the next page (None after the
last). Each statement is asked for one row more than the page, which says whether more exist
without counting them all.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Generic, Literal, TypeVar

import msgspec

from service.db.graph import Graph
from service.errors import KgsError
from service.text.near_keys import jaccard, shingles

__all__ = [
    "EXCERPT_CHARS",
    "MAX_DECLARING_DOCUMENTS",
    "NEAR_CANDIDATES_PER_PAGE",
    "NEAR_DUPLICATE_SIMILARITY",
    "NEAR_GROUP_PARAGRAPHS",
    "OPEN_TICKET_STATUSES",
    "DanglingRelation",
    "DeclaringDocument",
    "ExpiredDocument",
    "InvalidHealthRequest",
    "NearDuplicate",
    "OpenGap",
    "ParagraphExcerpt",
    "SectionPage",
    "UndescribedPoint",
    "dangling_relations",
    "expired_pages",
    "near_duplicate_paragraphs",
    "open_gaps",
    "undescribed_points",
]

T = TypeVar("T")

MAX_DECLARING_DOCUMENTS = 20  # declaring documents listed per undescribed point (all counted)
# Near duplicates: two paragraphs whose shingle sets (service/health/near_keys.py) have at least
# this Jaccard similarity; the near keys make candidates of pairs near it (0.96 of them at 0.8).
NEAR_DUPLICATE_SIMILARITY = 0.8
NEAR_GROUP_PARAGRAPHS = 100  # paragraphs kept per near key: a larger group is boilerplate
# Candidate pairs one page examines, read in one statement (each with both texts; grouping the
# scope's keys is most of its time): a scope of many false candidates gets short pages that
# still carry a cursor, rather than one unbounded read.
NEAR_CANDIDATES_PER_PAGE = 4_000
EXCERPT_CHARS = 240  # characters of a paragraph's text shown with a near duplicate
# Tickets an editor still has to act on: `answerable` ones may be closed by a later answer but
# are not resolved yet (docs/escalations.md).
OPEN_TICKET_STATUSES = ("open", "answerable")
# The key name of the gap re-checks' own answer records (service/api/gap_recheck.RECHECK_KEY, a
# layer above): the service asking again is no demand for the answer.
_RECHECK_KEY_NAME = "escalation-recheck"


class InvalidHealthRequest(KgsError, ValueError):
    """A page size out of range (KGS_HEALTH_MAX_PAGE_SIZE, checked by report.py), an unknown
    section or cursor, or a date that is not an ISO date."""

    http_status = 400


class SectionPage(msgspec.Struct, Generic[T], frozen=True, kw_only=True, rename="camel"):
    """One page of a section; `next_after` is the cursor of the next page, None after the last.
    A near-duplicate page may hold fewer than `limit` items and still carry a cursor."""

    items: list[T]
    next_after: str | None


class ExpiredDocument(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    document_id: str
    path: str
    title: str | None
    version: int | None
    valid_until: str | None
    superseded_by: str | None
    reason: Literal["expired", "superseded"]  # superseded wins when both hold


class DeclaringDocument(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    document_id: str
    path: str


class UndescribedPoint(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    id: str
    title: str | None
    declared_in: list[DeclaringDocument]  # the first MAX_DECLARING_DOCUMENTS, by path
    declared_in_count: int


class DanglingRelation(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    source_id: str
    type: str
    target_id: str
    stub_end: Literal["source", "target", "both"]  # the end no page defines
    source_document_id: str | None
    path: str | None  # of the declaring document
    source_paragraph_id: str | None  # a Mermaid diagram's
    source_line: int | None  # a front matter relation's


class ParagraphExcerpt(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    document_id: str
    path: str | None
    paragraph_id: str
    start_line: int | None
    excerpt: str  # at most EXCERPT_CHARS characters


class NearDuplicate(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    first: ParagraphExcerpt  # the lower paragraph id
    second: ParagraphExcerpt
    similarity: float  # Jaccard of the shingle sets, 4 decimals


class OpenGap(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    ticket_id: str
    question: str
    status: str
    created_at: str
    times_asked: int  # answer records still kept that asked it, the re-checks not counted


def expired_pages(
    graph: Graph, scope: str, *, today: str, after: str | None, limit: int
) -> SectionPage[ExpiredDocument]:
    """Active documents past their validUntil (before `today`, an ISO date) or superseded, by
    path; the cursor is a path."""
    rows = graph.read(
        "health/expired_pages", scope=scope, today=_iso_date(today), after=after or "",
        limit=limit + 1,
    )  # fmt: skip
    return _page(rows, limit, "path", ExpiredDocument)


def undescribed_points(
    graph: Graph, scope: str, *, after: str | None, limit: int
) -> SectionPage[UndescribedPoint]:
    """Knowledge points (stubs aside) no active document describes, by id, with the documents
    that only declare them; the cursor is a knowledge point id."""
    rows = graph.read(
        "health/undescribed_points", scope=scope, after=after or "",
        maxDeclaring=MAX_DECLARING_DOCUMENTS, limit=limit + 1,
    )  # fmt: skip
    return _page(rows, limit, "id", UndescribedPoint)


def dangling_relations(
    graph: Graph, scope: str, *, after: str | None, limit: int
) -> SectionPage[DanglingRelation]:
    """Relations active documents declare with an end no page defines (`stub_end` names it:
    a point no page describes or declares), by source, type and target."""
    rows = graph.read("health/dangling_relations", scope=scope, after=after or "",
                      limit=limit + 1)  # fmt: skip
    return _page(rows, limit, "key", DanglingRelation)


def open_gaps(graph: Graph, scope: str, *, after: str | None, limit: int) -> SectionPage[OpenGap]:
    """Escalation tickets not resolved yet, oldest first."""
    rows = graph.read(
        "health/open_gaps", scope=scope, statuses=list(OPEN_TICKET_STATUSES),
        after=after or "", limit=limit + 1, recheckKey=_RECHECK_KEY_NAME,
    )  # fmt: skip
    return _page(rows, limit, "key", OpenGap)


def near_duplicate_paragraphs(
    graph: Graph, scope: str, *, after: str | None, limit: int
) -> SectionPage[NearDuplicate]:
    """Pairs of paragraphs of different active documents whose shingle sets are at least
    NEAR_DUPLICATE_SIMILARITY alike, by pair key (the two paragraph ids). Candidates come from
    the stored near keys, at most NEAR_CANDIDATES_PER_PAGE of them in one statement, and each
    is confirmed here: a page of many false candidates ends short, with the last examined pair
    as its cursor."""
    rows = graph.read(
        "health/near_duplicate_candidates", scope=scope, maxGroup=NEAR_GROUP_PARAGRAPHS,
        after=after or "", limit=NEAR_CANDIDATES_PER_PAGE,
    )  # fmt: skip
    found: list[tuple[str, NearDuplicate]] = []
    sets: dict[str, frozenset[str]] = {}  # shingles by paragraph id: a paragraph recurs in pairs
    for row in rows:
        pair = _confirmed(row, sets)
        if pair is not None:
            found.append((str(row["pairKey"]), pair))
            if len(found) > limit:
                return SectionPage(items=[p for _, p in found[:limit]],
                                   next_after=found[limit - 1][0])  # fmt: skip
    more = len(rows) == NEAR_CANDIDATES_PER_PAGE
    return SectionPage(items=[p for _, p in found],
                       next_after=str(rows[-1]["pairKey"]) if more else None)  # fmt: skip


def _confirmed(row: dict[str, Any], sets: dict[str, frozenset[str]]) -> NearDuplicate | None:
    """The pair if both documents are active and the texts are alike enough."""
    if not row["active"]:
        return None
    first, second = row["first"], row["second"]
    for paragraph in (first, second):
        if paragraph["paragraphId"] not in sets:
            sets[paragraph["paragraphId"]] = shingles(paragraph["text"] or "")
    similarity = jaccard(sets[first["paragraphId"]], sets[second["paragraphId"]])
    if similarity < NEAR_DUPLICATE_SIMILARITY:
        return None
    return NearDuplicate(first=_excerpt(first), second=_excerpt(second),
                         similarity=round(similarity, 4))  # fmt: skip


def _excerpt(paragraph: dict[str, Any]) -> ParagraphExcerpt:
    text = paragraph["text"] or ""
    if len(text) > EXCERPT_CHARS:
        text = text[: EXCERPT_CHARS - 1].rstrip() + "…"
    return ParagraphExcerpt(
        document_id=paragraph["documentId"], path=paragraph["path"],
        paragraph_id=paragraph["paragraphId"], start_line=paragraph["startLine"], excerpt=text,
    )  # fmt: skip


def _page(rows: list[dict[str, Any]], limit: int, key: str, item: type[T]) -> SectionPage[T]:
    """The first `limit` rows as items; the last one's key is the cursor when a row more came."""
    shown = rows[:limit]
    more = len(rows) > limit
    return SectionPage(
        items=[msgspec.convert(row, item) for row in shown],
        next_after=str(shown[-1][key]) if more else None,
    )


def _iso_date(value: str) -> str:
    """`value` as YYYY-MM-DD, the form validUntil's date part is compared in."""
    try:
        return dt.date.fromisoformat(value).isoformat()
    except ValueError:
        message = f"today must be an ISO date (YYYY-MM-DD), got {value!r}"
        raise InvalidHealthRequest(message) from None
