"""Resources that live as long as the app: one Neo4j driver (bounded pool, bounded retries), the
embedding model, recent traces, the answer record writer, the limit on concurrent answers. The
lifespan opens and closes them; handlers receive them as the `resources` dependency."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Coroutine, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from functools import partial
from typing import Any

import anyio
from litestar import Litestar
from neo4j.exceptions import DriverError, Neo4jError
from opentelemetry.trace import Tracer

from ingest.embeddings import Embedder, EmbeddingError, ModelRoster, SentenceTransformerEmbedder
from service.api.answer_pool import AnswerPool
from service.api.context import TracedGraph, current_trace_id
from service.api.metrics import (
    PROCESS_CACHE_GAUGES,
    RECORD_GAUGES,
    TICKET_GAUGES,
    WORKER_GAUGES,
    count_record,
)
from service.api.process import freeze_startup_objects, service_graph
from service.api.shared_model import ModelServer
from service.api.trace_store import TraceStore
from service.db.graph import CypherCall, Graph
from service.db.schema import SchemaError, apply_schema
from service.db.selection import Connection, connect
from service.embedding_space import bind_embedder
from service.errors import KgsError
from service.escalations import ticket_counts
from service.pipeline.name_cache import name_cache_stats
from service.records import RecordWriter, record_stats
from service.settings import Settings
from service.text.text_cache import CacheStats, configure_text_caches

__all__ = ["AppResources", "lifespan", "run_periodically"]

log = logging.getLogger("kgs.api")


class AppResources:
    """`graph` / `embedder` given: borrowed (tests); otherwise opened here and closed at exit."""

    def __init__(
        self,
        settings: Settings,
        *,
        graph: Graph | None = None,
        embedder: Embedder | None = None,
    ) -> None:
        self.settings = settings
        self.graph = graph
        self._owns_graph = graph is None
        # The embedder serialises its own model calls (merging concurrent ones) and answers
        # cached texts without waiting for the model.
        self.embedder: Embedder | None = embedder
        self._owns_embedder = embedder is None
        self.model_state = "loaded" if embedder else "not loaded"
        self.schema_applied = graph is not None
        api = settings.api
        self.traces = TraceStore(
            api.trace_retention_count, api.trace_retention_s, api.trace_retention_bytes
        )
        self.answer_limiter: anyio.CapacityLimiter | None = None
        self.connection: Connection | None = None  # the route to Neo4j, once opened here
        self.answer_pool: AnswerPool | None = None  # worker processes, when configured
        self._model_server: ModelServer | None = None  # the model, served to those workers
        self._close: Callable[[], None] | None = None
        self._scope_locks: dict[str, anyio.Lock] = {}
        self.records: RecordWriter | None = None  # stores every answer (KGS_RECORDS_ENABLED)
        # Writes each answer's spans (service/api/telemetry.py); None: OpenTelemetry is off.
        self.tracer: Tracer | None = None
        self.feed_streams = 0  # open change streams (service/api/changes.py; event loop only)

    def open(self) -> None:
        configure_text_caches(self.settings.text_cache)
        PROCESS_CACHE_GAUGES.watch(self.process_caches)
        if self._owns_graph:
            self._open_graph()
        self.ensure_schema()
        if self.graph is not None and self.settings.records.enabled:
            self.records = RecordWriter(
                self.graph, self.settings.records, count_record, self.settings.ops
            )
            graph, records = self.graph, self.settings.records
            RECORD_GAUGES.watch(partial(record_stats, graph, records.metric_scopes),
                                records.metric_interval_s)  # fmt: skip
        if self.graph is not None and self.settings.escalations.enabled:
            TICKET_GAUGES.watch(partial(ticket_counts, self.graph),
                                self.settings.escalations.metric_interval_s)  # fmt: skip
        if self._owns_embedder:
            self._load_embedder()
        # Only with resources opened here: borrowed ones (tests) stay in this process.
        if self.connection and self._owns_embedder and self.settings.api.answer_processes:
            roster = self.embedder if isinstance(self.embedder, ModelRoster) else None
            self._model_server = ModelServer(roster) if roster else None
            address = self._model_server.address if self._model_server else None
            self.answer_pool = AnswerPool(self.settings, self.connection, address)
            WORKER_GAUGES.watch(self.answer_pool.reports)
        if self._owns_graph and self._owns_embedder:  # a served process, not a test's app
            freeze_startup_objects(self.settings.api.gc_young_threshold)

    def process_caches(self) -> list[CacheStats]:
        """This process's caches besides the text caches, each within its byte budget."""
        embedder = self.embedder
        models = (embedder.models() if isinstance(embedder, ModelRoster)
                  else [embedder] if isinstance(embedder, SentenceTransformerEmbedder)
                  else [])  # fmt: skip
        traces, names = self.traces, name_cache_stats()
        return [
            CacheStats(kind="question_vectors", bytes=sum(m.cache_bytes for m in models),
                       budget_bytes=sum(m.settings.cache_bytes for m in models),
                       entries=sum(m.cache_entries for m in models),
                       hits=sum(m.cache_hits for m in models),
                       misses=sum(m.cache_misses for m in models)),
            CacheStats(kind="traces", bytes=traces.bytes, budget_bytes=traces.max_bytes,
                       entries=len(traces), hits=traces.hits, misses=traces.misses),
            CacheStats(kind="knowledge_point_names", bytes=names.bytes,
                       budget_bytes=self.settings.pipeline.name_cache_bytes,
                       entries=names.entries, hits=names.hits, misses=names.misses),
        ]  # fmt: skip

    def close(self) -> None:
        PROCESS_CACHE_GAUGES.watch(None)
        if self.records is not None:  # the answers given so far keep their records
            self.records.close(self.settings.api.shutdown_grace_s)
            self.records = None
            RECORD_GAUGES.watch(None, self.settings.records.metric_interval_s)
        TICKET_GAUGES.watch(None, self.settings.escalations.metric_interval_s)
        if self.answer_pool is not None:
            WORKER_GAUGES.watch(None)
            self.answer_pool.close()
            self.answer_pool = None
        if self._model_server is not None:
            self._model_server.close()
            self._model_server = None
        if self._close is not None:
            self._close()
            self._close = None
            self.graph = None

    def request_graph(self, on_call: Callable[[CypherCall], None] | None = None) -> TracedGraph:
        """The graph for this request: trace id in every transaction's metadata."""
        if self.graph is None:
            raise DriverErrorNotOpen("Neo4j connection is not open")
        return TracedGraph(self.graph, current_trace_id(), on_call)

    def ensure_schema(self) -> bool:
        """Apply the schema once Neo4j answers (start-up, or the first /ready after an outage)."""
        if self.schema_applied or self.graph is None:
            return self.schema_applied
        try:
            apply_schema(self.graph, timeout_s=self.settings.api.schema_wait_s)
        except (DriverError, Neo4jError, SchemaError) as error:
            log.warning("schema not applied yet (Neo4j: %s); retried by /ready", error)
            return False
        self.schema_applied = True
        return True

    def scope_lock(self, scope: str) -> anyio.Lock:
        """Writes to one scope run one at a time (the scope's knowledge point index and degree
        refresh see a whole document, never half of a concurrent one). Awaited on the event
        loop, not in a worker thread: writers waiting their turn must not take the threads that
        reads need (under load they did: document reads waited seconds behind queued uploads).
        Only the event loop's thread calls this, so the dictionary needs no lock."""
        if scope not in self._scope_locks:
            self._scope_locks[scope] = anyio.Lock()
        return self._scope_locks[scope]

    def reset_scope_locks(self) -> None:
        """A new event loop (each app start-up) gets new locks: anyio locks belong to one."""
        self._scope_locks = {}

    def _open_graph(self) -> None:
        # Provisioning errors (no Docker, local server cannot start) stop the start-up; an
        # unreachable server does not: the driver connects on first use and after every outage.
        connection, release = connect(self.settings)
        graph = service_graph(self.settings, connection)
        self.graph, self.connection = graph, connection

        def close() -> None:
            graph.driver.close()
            release()

        self._close = close

    def _load_embedder(self) -> None:
        if not self.settings.embedding.enabled:
            self.model_state = "disabled"
            return
        model = ModelRoster(self.settings.embedding.for_queries())
        try:
            model.embed(["warm-up"])  # loads the weights now, not on the first question
            if self.graph is not None:  # and the graph's active model, when it is another
                active = bind_embedder(self.graph, model).embedder
                if active is not None:
                    active.embed(["warm-up"])
        except EmbeddingError as error:
            # Questions still get lexical retrieval; /ready reports the model as failed.
            self.model_state = f"failed: {error}"
            log.error("embedding model not loaded: %s", error)
            return
        self.embedder = model
        self.model_state = "loaded"


class DriverErrorNotOpen(DriverError):
    """No driver at all (start-up could not provision Neo4j): answered 503 like an outage."""


BackgroundTask = Callable[["AppResources"], Coroutine[Any, Any, None]]


async def run_periodically(
    resources: AppResources,
    interval_s: float,
    one_pass: Callable[[AppResources], Coroutine[Any, Any, object]],
    what: str,
) -> None:
    """A background task's loop: `one_pass` every `interval_s` seconds until cancelled. A pass
    that meets Neo4j away is logged as `what` not done; the next pass retries."""
    if interval_s <= 0:
        return
    while True:
        await asyncio.sleep(interval_s)
        if resources.graph is None:
            continue
        try:
            await one_pass(resources)
        except (DriverError, Neo4jError, KgsError) as error:
            log.warning("%s not done: %s", what, error)


def lifespan(
    resources: AppResources, background: Sequence[BackgroundTask] = ()
) -> Callable[[Litestar], AbstractAsyncContextManager[None]]:
    """Open the resources, run the `background` tasks while the app serves, then close."""

    @asynccontextmanager
    async def _lifespan(app: Litestar) -> AsyncIterator[None]:
        resources.answer_limiter = anyio.CapacityLimiter(
            resources.settings.api.max_concurrent_answers
        )
        resources.reset_scope_locks()  # locks belong to this run's event loop
        await anyio.to_thread.run_sync(resources.open)
        tasks: list[asyncio.Task[None]] = [asyncio.create_task(t(resources)) for t in background]
        try:
            yield
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            resources.close()

    return _lifespan
