"""Reads a question runs beside its other work: each waits on Neo4j, not on this process."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from service.db.graph import Graph, Row

__all__ = ["BACKGROUND_READ_WORKERS", "in_background", "read_in_background"]

T = TypeVar("T")

# Up to three reads of one answer at a time (its matched documents beside graph context, whose
# degree profile and compare paths run beside its neighbour candidates), for as many answers as
# are computed at once (KGS_API_MAX_CONCURRENT_ANSWERS' default, 4). A read beyond that waits
# for a worker; none of them waits on another.
BACKGROUND_READ_WORKERS = 12
_READS = ThreadPoolExecutor(max_workers=BACKGROUND_READ_WORKERS, thread_name_prefix="graph-read")


def in_background(work: Callable[..., T], *args: Any) -> Future[T]:
    return _READS.submit(work, *args)


def read_in_background(graph: Graph, name: str, **params: Any) -> Future[list[Row]]:
    return _READS.submit(graph.read, name, **params)
