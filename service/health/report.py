"""A scope's health report (docs/health.md): every section's first page at once, or one
section's page after a cursor. The CLI (`kgs health`), the API (GET /v1/scopes/{scope}/health)
and the inspector read it here; nothing is stored, each page is read anew."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any, Literal, get_args

import msgspec

from service.db.graph import Graph
from service.health.contradictions import Contradiction, contradictions
from service.health.sections import (
    DanglingRelation,
    ExpiredDocument,
    InvalidHealthRequest,
    NearDuplicate,
    OpenGap,
    SectionPage,
    UndescribedPoint,
    dangling_relations,
    expired_pages,
    near_duplicate_paragraphs,
    open_gaps,
    undescribed_points,
)
from service.settings import HealthSettings

__all__ = ["SECTIONS", "HealthReport", "Section", "health_report", "health_section"]

Section = Literal[
    "contradictions",
    "expiredPages",
    "undescribedPoints",
    "danglingRelations",
    "nearDuplicates",
    "openGaps",
]
SECTIONS: tuple[Section, ...] = get_args(Section)


class HealthReport(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    scope: str
    generated_at: str  # ISO 8601, UTC
    today: str  # the date validity was judged on (YYYY-MM-DD)
    contradictions: SectionPage[Contradiction]
    # More contradicting subjects than KGS_HEALTH_MAX_CONTRADICTIONS: the ranking covers the
    # first ones by subject key only.
    contradictions_truncated: bool
    expired_pages: SectionPage[ExpiredDocument]
    undescribed_points: SectionPage[UndescribedPoint]
    dangling_relations: SectionPage[DanglingRelation]
    near_duplicates: SectionPage[NearDuplicate]
    open_gaps: SectionPage[OpenGap]

    def pages(self) -> dict[Section, SectionPage[Any]]:
        """Each section's page, by section name."""
        return {
            "contradictions": self.contradictions, "expiredPages": self.expired_pages,
            "undescribedPoints": self.undescribed_points,
            "danglingRelations": self.dangling_relations,
            "nearDuplicates": self.near_duplicates, "openGaps": self.open_gaps,
        }  # fmt: skip


def health_report(
    graph: Graph,
    scope: str,
    settings: HealthSettings,
    *,
    limit: int | None = None,
    today: str | None = None,
) -> HealthReport:
    """The first page of every section (`limit` findings each, the settings' page size when
    None); `today` for validity, the current UTC date when None."""
    today = today or _today()
    limit = _checked(settings, limit)
    contradicting, truncated = _contradiction_page(graph, scope, settings, None, limit)
    pages = {s: _READERS[s](graph, scope, after=None, limit=limit, **_extra(s, today))
             for s in SECTIONS if s != "contradictions"}  # fmt: skip
    return HealthReport(
        scope=scope, generated_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        today=today, contradictions=contradicting, contradictions_truncated=truncated,
        expired_pages=pages["expiredPages"], undescribed_points=pages["undescribedPoints"],
        dangling_relations=pages["danglingRelations"], near_duplicates=pages["nearDuplicates"],
        open_gaps=pages["openGaps"],
    )  # fmt: skip


def health_section(
    graph: Graph,
    scope: str,
    section: str,
    settings: HealthSettings,
    *,
    after: str | None = None,
    limit: int | None = None,
    today: str | None = None,
) -> SectionPage[Any]:
    """One page of one section, after the cursor a previous page returned."""
    if section not in SECTIONS:
        raise InvalidHealthRequest(f"unknown section {section!r}: one of {', '.join(SECTIONS)}")
    limit = _checked(settings, limit)
    if section == "contradictions":
        return _contradiction_page(graph, scope, settings, after, limit)[0]
    return _READERS[section](graph, scope, after=after, limit=limit,
                             **_extra(section, today or _today()))  # fmt: skip


_READERS: dict[str, Callable[..., SectionPage[Any]]] = {
    "expiredPages": expired_pages,
    "undescribedPoints": undescribed_points,
    "danglingRelations": dangling_relations,
    "nearDuplicates": near_duplicate_paragraphs,
    "openGaps": open_gaps,
}


def _extra(section: str, today: str) -> dict[str, str]:
    return {"today": today} if section == "expiredPages" else {}


def _checked(settings: HealthSettings, limit: int | None) -> int:
    limit = settings.page_size if limit is None else limit
    if not 1 <= limit <= settings.max_page_size:
        raise InvalidHealthRequest(f"limit must be between 1 and {settings.max_page_size}")
    return limit


def _contradiction_page(
    graph: Graph, scope: str, settings: HealthSettings, after: str | None, limit: int
) -> tuple[SectionPage[Contradiction], bool]:
    """Ranked by citations, so paged by position in the ranking: the cursor is the number of
    findings already shown (a finding cited meanwhile may move between pages). True: more
    subjects contradict than the report reads."""
    if after is not None and not after.isdigit():
        raise InvalidHealthRequest(f"invalid cursor for contradictions: {after!r}")
    start = int(after or 0)
    found, total = contradictions(
        graph, scope, start=start, limit=limit, max_findings=settings.max_contradictions,
        max_sides=settings.max_sides, quote_chars=settings.quote_chars,
    )  # fmt: skip
    more = start + limit < total
    page = SectionPage(items=found, next_after=str(start + limit) if more else None)
    return page, total >= settings.max_contradictions


def _today() -> str:
    return dt.datetime.now(dt.UTC).date().isoformat()
