"""Where Neo4j is and the local server kgs runs itself (variables KGS_NEO4J_*, NEO4J_*)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import msgspec

from service.settings.environment import env_name

__all__ = ["LocalServerSettings", "Neo4jSettings"]


class Neo4jSettings(msgspec.Struct, frozen=True, kw_only=True):
    """How to reach Neo4j. `uri=None` means: let the route selection decide (Docker or local)."""

    # This server instead of Docker or the local one.
    uri: Annotated[str | None, env_name("NEO4J_URI")] = None
    user: Annotated[str, env_name("NEO4J_USER")] = "neo4j"  # Neo4j user
    password: Annotated[str | None, env_name("NEO4J_PASSWORD")] = (
        None  # None: the local server's generated password (see local_server)
    )
    database: Annotated[str, env_name("NEO4J_DATABASE")] = "neo4j"  # Neo4j database name
    connection_timeout_s: float = 10.0  # to open a Bolt connection
    query_timeout_s: float = 30.0  # a transaction running longer is stopped
    max_pool_size: int = 32  # Bolt connections kept by the driver


class LocalServerSettings(msgspec.Struct, frozen=True, kw_only=True):
    """The Neo4j server that the project provisions from Maven Central and runs itself."""

    home: Path
    bolt_port: int = 7687  # the local server's Bolt port
    http_port: int = 7474  # the local server's HTTP port (Neo4j Browser)
    listen_address: str = "127.0.0.1"  # the local server listens here only
    heap_max: Annotated[str, env_name("KGS_NEO4J_HEAP")] = "1g"  # the local server's JVM heap
    pagecache_size: Annotated[str, env_name("KGS_NEO4J_PAGECACHE")] = "512m"  # its page cache
    # Lucene segments of a vector index merged at a time (Neo4j's default is 50). Every segment
    # is searched separately, so re-ingested scopes that leave ten 10k-vector segments cost ten
    # HNSW searches per question; 2 keeps an index in a few segments at the price of more
    # background merging while writing (docs/benchmarks.md).
    vector_merge_factor: Annotated[int, msgspec.Meta(ge=2)] = 2
    # Transaction logs kept after a checkpoint (Neo4j's default keeps two days: tens of GB after
    # a million-paragraph ingest). A local server is rebuilt from the Markdown, not restored.
    tx_log_retention: str = "1G size"
    start_timeout_s: float = 180.0  # wait for the local server to accept Bolt
    stop_timeout_s: float = 120.0  # wait for it to stop
    provision_timeout_s: float = 1800.0  # to fetch Neo4j from Maven Central
