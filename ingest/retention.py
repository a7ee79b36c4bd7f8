"""Retention of document versions (`kgs retention apply`, docs/versions.md).

A version is released only when it is not its document's head, not among its newest
`keep_last`, older than `keep_age_s`, and cited by no answer record still kept. Released
versions are deleted in batches; the head and the searchable graph are never touched.
"""

from __future__ import annotations

import time

import msgspec

from service.db.graph import Graph
from service.settings import VersionSettings

__all__ = ["RetentionReport", "apply_retention"]

_FATES = ("head", "lastN", "young", "cited", "release")


class RetentionReport(msgspec.Struct, frozen=True, kw_only=True):
    dry_run: bool
    kept: dict[str, int]  # why versions are kept: head, lastN, young, cited
    releasable: int  # versions the rules release (before this run)
    released: int  # versions deleted by this run (0 on a dry run)


def apply_retention(
    graph: Graph,
    settings: VersionSettings,
    *,
    scope: str | None = None,
    dry_run: bool = False,
    now_ms: int | None = None,
) -> RetentionReport:
    now_ms = int(time.time() * 1000) if now_ms is None else now_ms
    rules = {"scope": scope, "keepLast": max(1, settings.keep_last),
             "cutoffMs": now_ms - int(settings.keep_age_s * 1000)}  # fmt: skip
    census = {str(r["fate"]): int(r["versions"])
              for r in graph.read("versions/retention_census", **rules)}  # fmt: skip
    released = 0
    if not dry_run:
        while batch := int(graph.write("versions/release_versions", batch=settings.retention_batch,
                                       **rules).rows[0]["released"]):  # fmt: skip
            released += batch
    return RetentionReport(
        dry_run=dry_run,
        kept={fate: census.get(fate, 0) for fate in _FATES[:-1]},
        releasable=census.get("release", 0),
        released=released,
    )
