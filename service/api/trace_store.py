"""Recent answers' traces in memory: bounded by count and by age, shared by the threads."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import Any

import msgspec

__all__ = ["StoredTrace", "TraceStore"]


class StoredTrace(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    trace_id: str
    scope: str  # the scope answered from
    # Every scope the question searched (a question without a scope: its trace names them all);
    # a key reads the trace only if it may read each of them.
    scopes: tuple[str, ...] = ()
    query: str
    status: str
    created_at: str  # ISO 8601, UTC
    trace: dict[str, Any]


class TraceStore:
    """The newest `max_entries` traces, each kept at most `max_age_s`; thread-safe."""

    def __init__(self, max_entries: int, max_age_s: float) -> None:
        self.max_entries = max_entries
        self.max_age_s = max_age_s
        self._items: OrderedDict[str, tuple[float, StoredTrace]] = OrderedDict()
        self._lock = threading.Lock()

    def put(self, stored: StoredTrace) -> None:
        with self._lock:
            self._items[stored.trace_id] = (time.monotonic(), stored)
            self._items.move_to_end(stored.trace_id)
            while len(self._items) > self.max_entries:
                self._items.popitem(last=False)

    def get(self, trace_id: str) -> StoredTrace | None:
        with self._lock:
            self._expire()
            entry = self._items.get(trace_id)
            return entry[1] if entry else None

    def __len__(self) -> int:
        with self._lock:
            self._expire()
            return len(self._items)

    def _expire(self) -> None:
        horizon = time.monotonic() - self.max_age_s
        while self._items:
            first = next(iter(self._items.values()))
            if first[0] >= horizon:
                return
            self._items.popitem(last=False)
