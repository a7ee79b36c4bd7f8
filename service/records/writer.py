"""Records are written by one background thread, so an answer never waits for its record: the
request hands it over and returns. The same thread writes failure records (a failed request of
the answer path) and applies retention from time to time: answer records, failure records and
the operations rollups.

An answer record that cannot be written is dropped: the answer was given, and an outage must not
grow memory. A failure record is what an outage leaves, so up to KGS_OPS_HELD_FAILURES of them
are held while Neo4j is away and written after the next write that succeeds."""

from __future__ import annotations

import collections
import logging
import queue
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from neo4j.exceptions import DriverError, Neo4jError

from service.db.graph import Graph
from service.records.failures import FailureRecord, store_failure
from service.records.model import build_record
from service.records.store import apply_ops_retention, apply_retention, store_record
from service.settings import OpsSettings, RecordSettings

__all__ = ["RecordWriter"]

log = logging.getLogger("kgs.records")

_STOP = object()


class _Pending(NamedTuple):
    response: Mapping[str, Any]
    request: Mapping[str, Any]
    scopes: tuple[str, ...]
    key_name: str
    client: str
    created_at_ms: int
    encoded: bytes | None


class RecordWriter:
    """`submit` never blocks: a full queue drops the record. A record whose write fails (Neo4j
    away longer than the driver retries) is dropped too: the answer was already given, and an
    outage must not grow memory without bound. Both are logged and reported to `on_outcome`."""

    def __init__(
        self,
        graph: Graph,
        settings: RecordSettings,
        on_outcome: Callable[[str], None] | None = None,
        ops: OpsSettings | None = None,
    ) -> None:
        """`on_outcome` hears "written", "dropped" or "failed" for every record (metrics)."""
        self.graph = graph
        self.settings = settings
        self.ops = ops or OpsSettings()
        self._on_outcome = on_outcome or (lambda _outcome: None)
        self._queue: queue.Queue[object] = queue.Queue(maxsize=settings.queue_size)
        self._idle = threading.Condition()
        self._pending = 0
        self._next_retention = time.monotonic()
        self._held: collections.deque[FailureRecord] = collections.deque(
            maxlen=self.ops.held_failures
        )  # failure records not written yet, the oldest dropped first past the bound
        self._thread = threading.Thread(target=self._run, name="kgs-records", daemon=True)
        self._thread.start()

    def submit(
        self,
        response: Mapping[str, Any],
        *,
        request: Mapping[str, Any],
        scopes: Sequence[str],
        key_name: str,
        created_at_ms: int,
        client: str = "rest",
        encoded: bytes | None = None,
    ) -> bool:
        """Queue the answer's record; it is built (the response compressed) on the writer's
        thread, not on the caller's. `request`: the question's fields as asked (query, scope,
        depth, topK); `client`: "rest" or "mcp"; `encoded`: the response's JSON if the caller
        made it. False: dropped, the queue being full."""
        pending = _Pending(response, request, tuple(scopes), key_name, client, created_at_ms,
                           encoded)  # fmt: skip
        return self._enqueue(pending)

    def submit_failure(self, failure: FailureRecord) -> bool:
        """Queue a failure record, under the same bound as answers. False: dropped."""
        return self._enqueue(failure)

    def _enqueue(self, item: _Pending | FailureRecord) -> bool:
        with self._idle:
            try:
                self._queue.put_nowait(item)
            except queue.Full:
                self._on_outcome("dropped")
                log.warning("%s dropped: %d records queued", _described(item),
                            self.settings.queue_size)  # fmt: skip
                return False
            self._pending += 1
            return True

    def flush(self, timeout_s: float) -> bool:
        """Wait until every submitted record is written (or given up); False on timeout."""
        deadline = time.monotonic() + timeout_s
        with self._idle:
            while self._pending:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._idle.wait(left)
        return True

    def close(self, timeout_s: float = 10.0) -> None:
        self.flush(timeout_s)
        self._queue.put(_STOP)
        self._thread.join(timeout_s)

    def _run(self) -> None:
        while True:
            if time.monotonic() >= self._next_retention:  # due, even under a steady stream
                self._retention()
            try:
                item = self._queue.get(timeout=max(0.0, self._next_retention - time.monotonic()))
            except queue.Empty:
                continue
            if item is _STOP:
                return
            assert isinstance(item, _Pending | FailureRecord)
            try:
                self._write(item)
            finally:
                with self._idle:
                    self._pending -= 1
                    self._idle.notify_all()

    def _write(self, item: _Pending | FailureRecord) -> None:
        try:
            if isinstance(item, FailureRecord):
                store_failure(self.graph, item)
                self._write_held()
            else:
                record = build_record(
                    item.response, request=item.request, scopes=item.scopes,
                    key_name=item.key_name, client=item.client,
                    created_at_ms=item.created_at_ms, max_response_bytes=self.settings.max_bytes,
                    encoded=item.encoded,
                )  # fmt: skip
                store_record(self.graph, record, self.ops.max_wordings)
                self._write_held()
        except (DriverError, Neo4jError) as error:
            if isinstance(item, FailureRecord) and self.ops.held_failures:
                self._held.append(item)  # written when Neo4j is back
                self._on_outcome("held")
                log.warning("%s held until Neo4j answers: %s", _described(item), error)
                return
            self._on_outcome("failed")
            log.error("%s not stored: %s", _described(item), error)
        except Exception:  # the writer thread outlives any one record
            self._on_outcome("failed")
            log.exception("%s not stored", _described(item))
        else:
            self._on_outcome("written")

    def _write_held(self) -> None:
        """After a write that succeeded: the failure records held through an outage, oldest
        first; one that fails again waits for the next success."""
        while self._held:
            failure = self._held[0]
            try:
                store_failure(self.graph, failure)
            except (DriverError, Neo4jError):
                return
            self._held.popleft()
            self._on_outcome("written")

    def _retention(self) -> None:
        self._next_retention = time.monotonic() + self.settings.retention_interval_s
        try:
            deleted = apply_retention(self.graph, self.settings)
            deleted += apply_ops_retention(self.graph, self.ops, self.settings.retention_batch)
            self._write_held()
        except Exception as error:  # Neo4j away, or anything else: next interval tries again
            log.warning("answer record retention not applied: %s", error)
            return
        if deleted:
            log.info("answer record retention deleted %d records", deleted)


def _described(item: _Pending | FailureRecord) -> str:
    """The record and its trace id, for the log."""
    if isinstance(item, FailureRecord):
        return f"failure record {item.trace_id}"
    return f"answer record {(item.response.get('trace') or {}).get('traceId')}"
