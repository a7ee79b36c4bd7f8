"""Retention of document versions and change-feed events (`kgs retention apply`,
docs/versions.md).

A version is released only when it is not its document's head, not among its newest
`keep_last`, older than `keep_age_s`, and cited by no answer record still kept. Released
versions are deleted in batches; the head and the searchable graph are never touched.

A scope's change-feed events older than `feed_max_age_s` are deleted oldest first, in batches;
the scope's counter keeps the newest number deleted, so a cursor before it is known to have
missed events (`FeedCursorExpired`, 410 on GET /v1/changes) without the events themselves.
"""

from __future__ import annotations

import time

import msgspec

from service.db.graph import Graph
from service.errors import KgsError
from service.settings import VersionSettings

__all__ = [
    "FeedCursorExpired",
    "FeedRetentionReport",
    "RetentionReport",
    "apply_feed_retention",
    "apply_retention",
    "check_feed_cursor",
]

_FATES = ("head", "lastN", "young", "cited", "release")


class FeedRetentionReport(msgspec.Struct, frozen=True, kw_only=True):
    dry_run: bool
    feeds: int  # scopes whose feed lost events (would lose, on a dry run)
    deleted: int  # events deleted by this run (on a dry run: the events it would delete)


class RetentionReport(msgspec.Struct, frozen=True, kw_only=True):
    dry_run: bool
    kept: dict[str, int]  # why versions are kept: head, lastN, young, cited
    releasable: int  # versions the rules release (before this run)
    released: int  # versions deleted by this run (0 on a dry run)
    feed: FeedRetentionReport


class FeedCursorExpired(KgsError, LookupError):
    """A cursor before events that retention deleted: the reader has missed them for good."""

    http_status = 410

    def __init__(self, scope: str, after: int, deleted_through: int) -> None:
        self.scope, self.after, self.deleted_through = scope, after, deleted_through
        missed = (f"event {after + 1} was" if after + 1 == deleted_through
                  else f"events {after + 1} to {deleted_through} were")  # fmt: skip
        super().__init__(
            f"change feed of scope {scope}: {missed} deleted by retention "
            f"(KGS_VERSIONS_FEED_MAX_AGE_S) before this cursor read them, and the feed now starts "
            f"after {deleted_through}. Start again from after=0 and rebuild from the current "
            "documents (docs/versions.md#an-expired-cursor)"
        )


def check_feed_cursor(graph: Graph, scope: str, after: int) -> int:
    """The newest event number retention deleted from the scope's feed (0: none); raises
    FeedCursorExpired when `after` is before it. `after` 0 is a reader starting afresh, never
    expired: it gets the events kept."""
    [row] = graph.read("api/changes_boundary", scope=scope)
    deleted_through = int(row["deletedThrough"])
    if 0 < after < deleted_through:
        raise FeedCursorExpired(scope, after, deleted_through)
    return deleted_through


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
        feed=apply_feed_retention(graph, settings, scope=scope, dry_run=dry_run, now_ms=now_ms),
    )


def apply_feed_retention(
    graph: Graph,
    settings: VersionSettings,
    *,
    scope: str | None = None,
    dry_run: bool = False,
    now_ms: int | None = None,
) -> FeedRetentionReport:
    """Delete the change-feed events older than `feed_max_age_s` (of one scope, or all)."""
    if settings.feed_max_age_s <= 0:  # 0: the feed keeps every event
        return FeedRetentionReport(dry_run=dry_run, feeds=0, deleted=0)
    now_ms = int(time.time() * 1000) if now_ms is None else now_ms
    cutoff_ms = now_ms - int(settings.feed_max_age_s * 1000)
    if dry_run:
        [row] = graph.read("versions/feed_retention_census", scope=scope, cutoffMs=cutoff_ms)
        return FeedRetentionReport(dry_run=True, feeds=int(row["feeds"]),
                                   deleted=int(row["events"]))  # fmt: skip
    feeds = deleted = 0
    batch = settings.feed_retention_batch
    for row in graph.read("versions/feeds_to_expire", scope=scope, cutoffMs=cutoff_ms):
        feeds += 1
        while True:
            rows = graph.write("versions/expire_feed_events", scope=row["feed"],
                               cutoffMs=cutoff_ms, batch=batch).rows  # fmt: skip
            count = int(rows[0]["deleted"]) if rows else 0
            deleted += count
            if count < batch:  # a younger event, or none left
                break
    return FeedRetentionReport(dry_run=False, feeds=feeds, deleted=deleted)
