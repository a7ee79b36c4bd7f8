"""Answer records kept in Neo4j (KGS_RECORDS_*)."""

from __future__ import annotations

import msgspec

__all__ = ["RecordSettings"]


class RecordSettings(msgspec.Struct, frozen=True, kw_only=True):
    """Every answer the API gives is stored as a record (service/records/); these bound them."""

    enabled: bool = True  # off: answers are not recorded
    max_count: int = 100_000  # records kept, the newest; older ones are deleted
    max_age_s: float = 30 * 86_400.0  # records older than this are deleted
    # Records waiting for their write. The answer never waits for it: a full queue drops the
    # record (counted on /metrics and logged) rather than delay answers.
    queue_size: int = 1_000
    retention_interval_s: float = 60.0  # how often the writer applies max_count and max_age_s
    retention_batch: int = 5_000  # records deleted per transaction while applying them
    # The response, trace included, compressed; a larger one is stored without the trace's detail.
    max_bytes: int = 1_000_000
    max_page_size: int = 200  # records per page of GET /v1/answers
    # Records a page of GET /v1/answers examines at most (newest first), whatever its filters:
    # a rare filter fills a page only partly, and nextCursor goes on from where it stopped.
    page_scan: int = 2_000
    # /metrics counts records per scope for this many scopes (those with most records); the
    # others count as scope "other", so the label's values stay few. Read at most once a minute.
    metric_scopes: int = 20
    metric_interval_s: float = 60.0
