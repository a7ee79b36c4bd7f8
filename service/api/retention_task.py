"""Version and change-feed retention while the API serves: every
KGS_VERSIONS_RETENTION_INTERVAL_S the rules of `kgs retention apply` (ingest/retention.py) release
the versions they allow and delete the feed events older than KGS_VERSIONS_FEED_MAX_AGE_S, so a
service left running keeps its history and its feeds bounded without anyone running the CLI.
Each pass is the same statements as the CLI's, batched; replicas running it at once release
each version once (the release statement checks the rules again in its own transaction) and
delete each event once (the deletion holds the feed's counter lock)."""

from __future__ import annotations

import logging
from functools import partial

import anyio

from ingest.retention import RetentionReport, apply_retention
from service.api.state import AppResources, run_periodically

__all__ = ["retain_once", "retain_versions"]

log = logging.getLogger("kgs.versions")


async def retain_versions(resources: AppResources) -> None:
    """The background task (service/api/state.py lifespan); ends only when cancelled."""
    await run_periodically(
        resources, resources.settings.versions.retention_interval_s, retain_once,
        "document version and change-feed retention",
    )  # fmt: skip


async def retain_once(resources: AppResources, scope: str | None = None) -> RetentionReport:
    """One pass of the rules over every scope (or one): versions, then feed events."""
    report: RetentionReport = await anyio.to_thread.run_sync(partial(
        apply_retention, resources.request_graph(), resources.settings.versions, scope=scope
    ))  # fmt: skip
    if report.released:
        log.info("retention released %d document versions", report.released,
                 extra={"released": report.released, "kept": report.kept})  # fmt: skip
    if report.feed.deleted:
        log.info("retention deleted %d change-feed events of %d scopes", report.feed.deleted,
                 report.feed.feeds, extra={"deleted": report.feed.deleted,
                                           "feeds": report.feed.feeds})  # fmt: skip
    return report
