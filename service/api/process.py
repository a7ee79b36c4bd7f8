"""What every process of the service opens at start (the service process and each answer
worker): its Graph with the service's pool and timeouts, then the garbage-collection freeze; and
what a worker reports of itself."""

from __future__ import annotations

import gc
import os

import msgspec
from neo4j import GraphDatabase

from service.db.cypher_registry import CypherRegistry
from service.db.graph import Graph
from service.db.selection import Connection
from service.settings import Settings
from service.text.text_cache import CacheStats

__all__ = ["WorkerReport", "freeze_startup_objects", "resident_bytes", "service_graph"]

_PAGE_BYTES = os.sysconf("SC_PAGE_SIZE")


class WorkerReport(msgspec.Struct, frozen=True, kw_only=True):
    """What a worker says of itself with each answer (its process has no /metrics): its resident
    memory and its text caches, shown by the service's /metrics per worker."""

    rss_bytes: int
    caches: tuple[CacheStats, ...]


def service_graph(settings: Settings, connection: Connection) -> Graph:
    """A Graph on its own driver with the service's pool, timeouts and retry bound (the service
    process and each answer worker open one)."""
    n, api = settings.neo4j, settings.api
    driver = GraphDatabase.driver(
        connection.uri,
        auth=(connection.user, connection.password),
        connection_timeout=n.connection_timeout_s,
        connection_acquisition_timeout=n.connection_timeout_s,
        max_connection_pool_size=n.max_pool_size,
        max_transaction_retry_time=api.neo4j_retry_s,
        notifications_min_severity="OFF",
    )
    return Graph(
        driver, CypherRegistry.load(settings.cypher_dir),
        database=connection.database, query_timeout_s=n.query_timeout_s,
        read_retry_s=api.neo4j_retry_s,
    )  # fmt: skip


def freeze_startup_objects(young_threshold: int) -> None:
    """Leave everything allocated so far out of garbage collection for good. Startup leaves
    about 480k objects (modules, the model's library), which each full collection scanned:
    pauses of 120-265 ms every 20 answers or so, stalling every thread of the process (measured
    in one process answering the shipped knowledge base). Long-lived by design, so nothing is
    lost; what answers allocate later is collected as before, a young collection every
    `young_threshold` allocations (`ApiSettings.gc_young_threshold`)."""
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(young_threshold, middle, old)


def resident_bytes() -> int:
    """This process's resident memory (Linux /proc/self/statm; 0 where there is none)."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * _PAGE_BYTES
    except (OSError, IndexError, ValueError):
        return 0
