"""The operations routes and the rollups they read (KGS_OPS_*; docs/operations.md)."""

from __future__ import annotations

from typing import Annotated

import msgspec

from service.settings.environment import ZERO_ALLOWED

__all__ = ["OpsSettings"]

_DAY_S = 86_400.0


class OpsSettings(msgspec.Struct, frozen=True, kw_only=True):
    """Bounds of GET /v1/ops/summary, /gaps and /failures. Their cost depends on the window,
    the bucket and the scopes, never on how many answers were recorded: each reads the hourly
    and daily rollups the record writer keeps beside the records (service/ops/)."""

    default_window_s: float = 7 * _DAY_S  # the window up to `until` when `since` is absent
    max_window_s: float = 400 * _DAY_S  # since..until at most
    max_buckets: int = 2_000  # buckets of one answer (a year of days; 83 days of hours)
    default_limit: int = 10  # rows of each list (gaps, cited documents), unless asked
    max_limit: int = 100  # rows of each list at most (a larger `limit` is a 400)
    gap_scan: int = 300  # gap groups (scope and key words) read before similar ones merge
    # Daily gap rollups read at most (newest days first): one per scope, day, status and
    # distinct question, so this bounds a gaps request whatever the number of questions.
    gap_scan_rollups: int = 20_000
    gap_similarity: float = 0.5  # Jaccard similarity of key words that makes two groups one gap
    max_wordings: int = 5  # wordings kept per gap group and day
    document_scan: int = 5_000  # documents examined for the never-cited list
    ticket_scan: int = 1_000  # open tickets read to attach to gaps
    recent_failures: int = 20  # the newest failure records listed
    failure_scan: int = 2_000  # failure records examined for that list
    # Age at which rollups are deleted: they outlive the records they count (records go after
    # KGS_RECORDS_MAX_AGE_S).
    rollup_max_age_s: float = 400 * _DAY_S
    failure_max_age_s: float = 30 * _DAY_S  # age at which failure records are deleted
    # Failure records held in memory while Neo4j is away, written once it answers (0: none;
    # past the bound the oldest go).
    held_failures: Annotated[int, ZERO_ALLOWED] = 1_000
