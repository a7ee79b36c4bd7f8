"""The time window of an operations request, checked and aligned to whole buckets (pure)."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Literal

import msgspec

from service.errors import KgsError
from service.records.model import iso_time
from service.records.rollup import DAY_MS, HOUR_MS
from service.settings import OpsSettings

__all__ = ["BUCKETS", "OpsRequestError", "Window", "window_of"]

Bucket = Literal["hour", "day"]
BUCKETS: dict[str, int] = {"hour": HOUR_MS, "day": DAY_MS}


class OpsRequestError(KgsError, ValueError):
    http_status = 400


class Window(msgspec.Struct, frozen=True, kw_only=True):
    """[since_ms, until_ms), both on bucket boundaries (UTC), and the daily part of it: the
    rollups of citations and gaps are daily."""

    since_ms: int
    until_ms: int
    bucket: Bucket
    bucket_ms: int

    @property
    def days(self) -> tuple[int, int]:
        return (self.since_ms - self.since_ms % DAY_MS, _ceil(self.until_ms, DAY_MS))

    @property
    def starts(self) -> range:
        return range(self.since_ms, self.until_ms, self.bucket_ms)

    def bounds(self) -> dict[str, str]:
        return {"since": iso_time(self.since_ms), "until": iso_time(self.until_ms)}


def window_of(
    since: str | None, until: str | None, bucket: str, settings: OpsSettings, now_ms: int
) -> Window:
    """`since`/`until`: ISO 8601 (a time without an offset is UTC); defaults: the last
    default_window_s up to now. The window widens to whole buckets."""
    if bucket not in BUCKETS:
        raise OpsRequestError(f"bucket must be one of {', '.join(BUCKETS)}, not {bucket!r}")
    size = BUCKETS[bucket]
    end = _time_ms(until, "until") if until is not None else now_ms
    start = (
        _time_ms(since, "since")
        if since is not None
        else end - int(settings.default_window_s * 1000)
    )
    if start >= end:
        raise OpsRequestError("since must be before until")
    if end - start > settings.max_window_s * 1000:
        raise OpsRequestError(f"the window is longer than {settings.max_window_s:g} s")
    since_ms, until_ms = start - start % size, _ceil(end, size)
    if (until_ms - since_ms) // size > settings.max_buckets:
        raise OpsRequestError(
            f"the window holds more than {settings.max_buckets} {bucket} buckets; "
            "choose a shorter window or bucket=day"
        )
    return Window(since_ms=since_ms, until_ms=until_ms, bucket=bucket,  # type: ignore[arg-type]
                  bucket_ms=size)  # fmt: skip


def _time_ms(text: str, name: str) -> int:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise OpsRequestError(f"{name} is not an ISO 8601 time: {text[:40]!r}") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return math.floor(moment.timestamp() * 1000)


def _ceil(ms: int, size: int) -> int:
    return -(-ms // size) * size
