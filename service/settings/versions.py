"""Document history and the change feed (KGS_VERSIONS_*)."""

from __future__ import annotations

from typing import Annotated

import msgspec

from service.settings.environment import ZERO_ALLOWED

__all__ = ["VersionSettings"]


class VersionSettings(msgspec.Struct, frozen=True, kw_only=True):
    """Retention of document versions and change-feed events (`kgs retention apply`, and hourly
    in `kgs serve`) and the change feed's limits.

    Retention releases a version only when it is beyond the newest `keep_last` of its document,
    older than `keep_age_s`, not the head, and cited by no answer record that is kept. It
    deletes a feed's events older than `feed_max_age_s`, oldest first; a cursor before the
    deleted ones then answers 410 (docs/versions.md)."""

    keep_last: int = 10  # versions of each document always kept, the newest
    # Versions younger than this are always kept (0: age keeps none); seed 002's 90 days.
    keep_age_s: Annotated[float, ZERO_ALLOWED] = 90 * 86_400.0
    retention_batch: int = 1_000  # versions released per transaction
    # `kgs serve` applies these rules this often (0: only `kgs retention apply` does).
    retention_interval_s: Annotated[float, ZERO_ALLOWED] = 3_600.0
    # Change-feed events older than this are deleted by the same retention (0: the feed keeps
    # every event); the seed's 90 days, as for versions.
    feed_max_age_s: Annotated[float, ZERO_ALLOWED] = 90 * 86_400.0
    feed_retention_batch: int = 1_000  # feed events deleted per transaction
    max_feed_page: int = 1_000  # events per page of GET /v1/changes
    # The event stream (GET /v1/changes/stream) looks for new events this often, sends a comment
    # line when it has sent nothing for heartbeat_s, and ends after max_stream_s (the client
    # reconnects with Last-Event-ID and misses nothing).
    feed_poll_s: float = 1.0
    feed_heartbeat_s: float = 15.0
    max_stream_s: float = 3_600.0  # a stream ends after this
    max_streams: int = 100  # open at once per process; one more is refused with 503
