"""Recent answers' traces in memory: bounded by count, by size and by age, shared by the
threads. A trace's size is its JSON's (msgspec encodes one in about 0.1 ms); as Python objects
it takes about 3.5 times that (some 170 KiB for a 48 KiB trace)."""

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
    """The newest traces, at most `max_entries` of them and `max_bytes` of their JSON together,
    each kept at most `max_age_s`; thread-safe. An answer's record keeps its trace for longer
    (GET /v1/traces reads it there once it has left memory)."""

    def __init__(self, max_entries: int, max_age_s: float, max_bytes: int) -> None:
        self.max_entries = max_entries
        self.max_age_s = max_age_s
        self.max_bytes = max_bytes
        self.bytes = 0  # the JSON size of the traces held
        self.hits = 0  # GET /v1/traces answered from memory, or not (then from the record)
        self.misses = 0
        self._items: OrderedDict[str, tuple[float, StoredTrace, int]] = OrderedDict()
        self._lock = threading.Lock()

    def put(self, stored: StoredTrace, size: int | None = None) -> None:
        """`size`: the trace's JSON size when the caller knows it (or a bound on it: the
        whole response's JSON, which the answer record needs anyway)."""
        size = len(msgspec.json.encode(stored.trace)) if size is None else size
        with self._lock:
            if stored.trace_id in self._items:
                self.bytes -= self._items.pop(stored.trace_id)[2]
            self._items[stored.trace_id] = (time.monotonic(), stored, size)
            self.bytes += size
            while len(self._items) > self.max_entries or (
                self.bytes > self.max_bytes and len(self._items) > 1
            ):
                self.bytes -= self._items.popitem(last=False)[1][2]

    def get(self, trace_id: str) -> StoredTrace | None:
        with self._lock:
            self._expire()
            entry = self._items.get(trace_id)
            if entry is None:
                self.misses += 1
                return None
            self.hits += 1
            return entry[1]

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
            self.bytes -= self._items.popitem(last=False)[1][2]
