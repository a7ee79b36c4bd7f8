"""Reads a question runs beside its other reads: each waits on Neo4j, not on this process."""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from service.db.graph import Graph, Row

__all__ = ["BACKGROUND_READ_WORKERS", "read_in_background"]

# Up to two reads of one answer at a time (graph context's degree profile and compare paths,
# beside its neighbour candidates), for as many answers as are computed at once
# (KGS_API_MAX_CONCURRENT_ANSWERS' default, 4). A read beyond that waits for a worker; none of
# them waits on another. (Reading the matched documents beside graph context was tried: it
# slowed graph context's reads by as much as it saved, both compete for Neo4j and the GIL.)
BACKGROUND_READ_WORKERS = 8
_READS = ThreadPoolExecutor(max_workers=BACKGROUND_READ_WORKERS, thread_name_prefix="graph-read")


def read_in_background(graph: Graph, name: str, **params: Any) -> Future[list[Row]]:
    return _READS.submit(graph.read, name, **params)
