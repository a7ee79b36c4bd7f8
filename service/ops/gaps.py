"""GET /v1/ops/gaps: the questions not answered (abstained, partial, refused), grouped by their
key words, with how often and when they were last asked and the open tickets about them."""

from __future__ import annotations

from typing import Any

import msgspec

from service.db.graph import Graph
from service.ops.window import Window
from service.records.model import iso_time
from service.records.rollup import gap_words
from service.settings import OpsSettings

__all__ = ["Gap", "GapReport", "read_gaps", "similarity"]


class Gap(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    scope: str
    query: str  # the newest wording
    wordings: list[str]
    asked: int
    last_asked: str
    by_status: dict[str, int]
    trace_id: str  # the newest answer: an escalation starts from it
    open_tickets: list[str]


class GapReport(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    scope: str | None
    since: str
    until: str
    gaps: list[Gap]
    # False: the window held more daily gap rollups than KGS_OPS_GAP_SCAN_ROLLUPS; the newest
    # days were read and older ones left out.
    complete: bool


class _Group:
    """Groups of one scope merged while their key words stay alike."""

    def __init__(self, row: dict[str, Any]) -> None:
        self.scope: str = row["scope"]
        self.words = set(row["words"] or ())
        self.rows = [row]

    def absorb(self, row: dict[str, Any]) -> None:
        self.rows.append(row)
        self.words |= set(row["words"] or ())


def similarity(a: set[str], b: set[str]) -> float:
    """Jaccard similarity of two sets of key words (1.0 for two empty ones)."""
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def read_gaps(
    graph: Graph, window: Window, settings: OpsSettings, *, scope: str | None,
    scopes: list[str] | None, limit: int,
) -> GapReport:  # fmt: skip
    """The `limit` gaps asked most in the window (whole days), among the gap_scan groups asked
    most; groups of one scope whose key words are alike (gap_similarity) are one gap."""
    first_day, end_day = window.days
    rows = graph.read("ops/gap_groups", sinceMs=first_day, untilMs=end_day, scopes=scopes,
                      scope=scope, limit=settings.gap_scan,
                      scan=settings.gap_scan_rollups)  # fmt: skip
    groups: list[_Group] = []
    for row in rows:  # most asked first: a group absorbs those less asked
        home = next((g for g in groups if g.scope == row["scope"] and
                     similarity(g.words, set(row["words"] or ())) >= settings.gap_similarity),
                    None)  # fmt: skip
        if home is None:
            groups.append(_Group(row))
        else:
            home.absorb(row)
    tickets = graph.read("ops/open_tickets", scopes=scopes, scope=scope,
                         limit=settings.ticket_scan)  # fmt: skip
    gaps = sorted((_gap(g, tickets, settings) for g in groups),
                  key=lambda gap: (-gap.asked, gap.last_asked))  # fmt: skip
    complete = not rows or int(rows[0]["examined"]) < settings.gap_scan_rollups
    return GapReport(scope=scope, **window.bounds(), gaps=gaps[:limit], complete=complete)


def _gap(group: _Group, tickets: list[dict[str, Any]], settings: OpsSettings) -> Gap:
    newest = max(group.rows, key=lambda r: int(r["lastAskedMs"] or 0))
    by_status: dict[str, int] = {}
    for row in group.rows:
        for status, asked in row["byStatus"]:
            by_status[status] = by_status.get(status, 0) + int(asked)
    wordings = list(dict.fromkeys(w for row in group.rows for w in row["wordings"] or ()))
    return Gap(
        scope=group.scope, query=str(newest["query"]),
        wordings=wordings[: settings.max_wordings], asked=sum(int(r["asked"]) for r in group.rows),
        last_asked=iso_time(int(newest["lastAskedMs"])), by_status=dict(sorted(by_status.items())),
        trace_id=str(newest["traceId"]),
        open_tickets=[
            str(t["id"]) for t in tickets
            if t["scope"] == group.scope
            and similarity(group.words, set(gap_words(str(t["question"] or ""))))
            >= settings.gap_similarity
        ],
    )  # fmt: skip
