"""Percentiles from a latency histogram (pure): the bins of service/records/rollup.py."""

from __future__ import annotations

from collections.abc import Sequence

from service.records.rollup import LATENCY_BOUNDS_MS

__all__ = ["percentile_ms"]


def percentile_ms(counts: Sequence[int], quantile: float) -> float | None:
    """The quantile's time, interpolated inside its bin as if the bin's times were spread
    evenly; the open last bin answers its lower bound. None for an empty histogram."""
    total = sum(counts)
    if total == 0:
        return None
    rank = quantile * total
    seen = 0
    for index, count in enumerate(counts):
        if count and seen + count >= rank:
            low = LATENCY_BOUNDS_MS[index - 1] if index else 0.0
            if index >= len(LATENCY_BOUNDS_MS):
                return low
            high = LATENCY_BOUNDS_MS[index]
            return round(low + (high - low) * (rank - seen) / count, 2)
        seen += count
    return LATENCY_BOUNDS_MS[-1]
