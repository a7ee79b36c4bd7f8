"""The REST API: keys, development mode and the limits of one request (KGS_API_*)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated

import msgspec

from service.settings.environment import ZERO_ALLOWED, SettingsError, env_name

__all__ = ["ApiKey", "ApiSettings", "api_keys"]


class ApiKey(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One client's key as configured: only its SHA-256 is stored, never the key itself."""

    name: str
    sha256: Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{64}$")]
    scopes: tuple[str, ...] = ()  # the scopes it may read; "*" means every scope
    write: bool = False  # may upload and delete documents (in its scopes)


class ApiSettings(msgspec.Struct, frozen=True, kw_only=True):
    """The REST API: keys, development mode and the limits of one request."""

    keys: tuple[ApiKey, ...] = ()
    dev_mode: bool = False  # no key needed; every scope readable and writable (make run only)
    max_query_chars: int = 2000  # longest question accepted (422 beyond)
    max_top_k: int = 50  # largest topK a request may ask
    # A question without a scope considers every readable scope holding documents: one statement
    # pre-ranks them all (service/question/scope_choice.py), so the cost grows little with their
    # number; with more than this many it is refused (400: name a scope). `kgs ask` too.
    max_question_scopes: int = 1000
    # The full retrieval (one per scope) runs only in this many of them, the best pre-ranked,
    # and the best of those answers. KGS_API_QUESTION_SCOPE_CANDIDATES.
    question_scope_candidates: int = 3
    # The whole request body of an upload: KGS_INGEST_MAX_FILE_BYTES and the form around it.
    max_upload_bytes: int = 25_100_000
    max_page_size: int = 200  # documents per page
    max_neighbours: int = 200  # per knowledge point
    max_search_results: int = 50  # knowledge point search
    trace_retention_count: Annotated[int, env_name("KGS_API_TRACE_RETENTION")] = (
        1000  # most recent answers whose trace can be read back
    )
    trace_retention_s: float = 3600.0  # how long a trace can be read back
    # The traces held in memory together, by the size of their JSON (in memory about 3.5 times
    # that): 16 MiB holds some 350 answers' traces (about 48 KiB each), some 60 MiB of objects.
    trace_retention_bytes: int = 16 * 2**20
    max_concurrent_answers: int = 4  # answers computed at once; more requests wait their turn
    # Worker processes that compute answers (0: threads of the service process). One process
    # runs Python one thread at a time, and under load answers queued for that lock, not for
    # the cores; the model stays in the service process and serves the workers' embeddings.
    answer_processes: Annotated[int, ZERO_ALLOWED] = 2
    answer_threads: int = 2  # per worker process: one computes while another waits on Neo4j
    neo4j_retry_s: float = 3.0  # how long a transaction is retried before the request gets 503
    shutdown_grace_s: float = 10.0  # running requests may finish within this on SIGTERM
    schema_wait_s: float = 60.0  # start-up (or /ready after an outage) waits for ONLINE indexes
    # Per key (or client address without a valid key) on /v1; 0 requests: no limit.
    rate_limit_requests: Annotated[int, ZERO_ALLOWED] = 600  # per window, also the largest burst
    rate_limit_window_s: float = 60.0
    rate_limit_max_identities: int = 10_000  # tracked at once; the least recently seen go first
    # glibc heap arenas of `kgs serve` (0: glibc's default of 8 per core). Each thread that
    # allocates beside others gets its own arena, and worker, model and ingest threads left
    # RSS growing for minutes under load (902 -> 1598 MiB in 600 s; 2 arenas: 1196 MiB at 180 s).
    malloc_arenas: Annotated[int, ZERO_ALLOWED] = 2
    # Allocations of this size or more get their own mapping, returned when freed (0: glibc's
    # own threshold, which it raises up to 32 MiB after large frees, so the embedding model's
    # varying buffers stayed in the heap: RSS +12 MiB/min under the 30-minute soak).
    malloc_mmap_threshold_bytes: Annotated[int, ZERO_ALLOWED] = 131_072
    # Compiled oneDNN kernels the model's library keeps (ONEDNN_PRIMITIVE_CACHE_CAPACITY; 0:
    # oneDNN's own 1,024). A kernel per new input shape, and questions come in every length: RSS
    # rose about 1 MiB per 50 model calls of new lengths with 1,024 and stayed flat with 8
    # (bench/studies/model_memory.py).
    onednn_primitive_cache: Annotated[int, ZERO_ALLOWED] = 32
    # Allocations that start a young-generation garbage collection in a served process (Python's
    # default: 700). An answer allocates a few thousand objects (rows, passages, facts): at 700
    # each answer ran about four young collections and, every 20 answers or so, a full one over
    # the text caches; at 10,000 the answer path took 13% less CPU (docs/operations.md).
    gc_young_threshold: Annotated[int, msgspec.Meta(ge=100)] = 10_000


def api_keys(env: Mapping[str, str]) -> tuple[ApiKey, ...]:
    """KGS_API_KEYS (a JSON array) and KGS_API_KEYS_FILE (a file holding one), both optional."""
    keys: list[ApiKey] = []
    sources = [("KGS_API_KEYS", env.get("KGS_API_KEYS") or "")]
    if path := env.get("KGS_API_KEYS_FILE"):
        try:
            sources.append(("KGS_API_KEYS_FILE", Path(path).read_text(encoding="utf-8")))
        except OSError as error:
            raise SettingsError(f"KGS_API_KEYS_FILE: cannot read {path}: {error}") from None
    for name, raw in sources:
        if not raw.strip():
            continue
        try:
            keys.extend(msgspec.json.decode(raw, type=list[ApiKey]))
        except msgspec.DecodeError as error:
            raise SettingsError(f"{name}: {error}") from None
    names = [key.name for key in keys]
    if len(set(names)) != len(names):
        raise SettingsError("API key names must be unique")
    return tuple(keys)
