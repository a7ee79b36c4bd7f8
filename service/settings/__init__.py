"""Configuration: small frozen Structs with named defaults, read once from the environment.

Every limit has a name, a unit in that name and a default, declared once on its field; nothing is
unbounded by accident. `Settings.from_env` reads every section (environment.py says how a field
finds its variable); the sections are passed down from there, never rebuilt inside a stage.
Every variable is listed in docs/configuration.md, generated from these Structs (reference.py).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated

import msgspec

from service.settings.answer import AnswerSettings
from service.settings.api import ApiKey, ApiSettings, api_keys
from service.settings.connection import LocalServerSettings, Neo4jSettings
from service.settings.environment import (
    AUTO_IS_ON,
    SettingsError,
    env_name,
    project_root,
    read_section,
)
from service.settings.escalations import EscalationSettings
from service.settings.evidence import (
    ConflictSettings,
    FactSettings,
    PipelineSettings,
    TextCacheSettings,
)
from service.settings.generation import GenerationSettings
from service.settings.health import HealthSettings
from service.settings.ingestion import IngestSettings
from service.settings.mcp import McpSettings
from service.settings.models import EmbeddingSettings, LlmSettings
from service.settings.ops import OpsSettings
from service.settings.records import RecordSettings
from service.settings.review import ReviewSettings
from service.settings.telemetry import TelemetrySettings
from service.settings.versions import VersionSettings

__all__ = [
    "GIVEN_FIELDS",
    "SECTIONS",
    "AnswerSettings",
    "ApiKey",
    "ApiSettings",
    "ConflictSettings",
    "EmbeddingSettings",
    "EscalationSettings",
    "FactSettings",
    "GenerationSettings",
    "HealthSettings",
    "IngestSettings",
    "LlmSettings",
    "LocalServerSettings",
    "McpSettings",
    "Neo4jSettings",
    "OpsSettings",
    "PipelineSettings",
    "RecordSettings",
    "ReviewSettings",
    "Settings",
    "SettingsError",
    "TelemetrySettings",
    "TextCacheSettings",
    "VersionSettings",
    "project_root",
]


class Settings(msgspec.Struct, frozen=True, kw_only=True):
    neo4j: Neo4jSettings
    local: LocalServerSettings
    embedding: EmbeddingSettings
    ingest: IngestSettings
    cypher_dir: Path
    # Neo4j in Docker when an engine answers (auto); off: never.
    use_docker: Annotated[bool, env_name("KGS_USE_DOCKER"), AUTO_IS_ON] = True
    llm: LlmSettings = msgspec.field(default_factory=LlmSettings)
    generation: GenerationSettings = msgspec.field(default_factory=GenerationSettings)
    api: ApiSettings = msgspec.field(default_factory=ApiSettings)
    pipeline: PipelineSettings = msgspec.field(default_factory=PipelineSettings)
    answer: AnswerSettings = msgspec.field(default_factory=AnswerSettings)
    conflicts: ConflictSettings = msgspec.field(default_factory=ConflictSettings)
    text_cache: TextCacheSettings = msgspec.field(default_factory=TextCacheSettings)
    records: RecordSettings = msgspec.field(default_factory=RecordSettings)
    ops: OpsSettings = msgspec.field(default_factory=OpsSettings)
    versions: VersionSettings = msgspec.field(default_factory=VersionSettings)
    review: ReviewSettings = msgspec.field(default_factory=ReviewSettings)
    escalations: EscalationSettings = msgspec.field(default_factory=EscalationSettings)
    mcp: McpSettings = msgspec.field(default_factory=McpSettings)
    health: HealthSettings = msgspec.field(default_factory=HealthSettings)
    telemetry: TelemetrySettings = msgspec.field(default_factory=TelemetrySettings)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        root = project_root()
        home = Path(env.get("KGS_HOME") or root / ".kgs")
        given: dict[str, dict[str, object]] = {
            "local": {"home": home / "neo4j"}, "api": {"keys": api_keys(env)},
        }  # fmt: skip
        sections = {
            attribute: read_section(section, env, prefix, **given.get(attribute, {}))
            for attribute, section, prefix in SECTIONS
        }
        return read_section(
            cls,
            env,
            "KGS_",
            cypher_dir=Path(env.get("KGS_CYPHER_DIR") or root / "cypher"),
            **sections,
        )


# Each section of Settings, the Struct that holds it and the prefix of its variables. Fields
# that Settings.from_env passes itself (paths, the API keys) are read from other variables.
SECTIONS: tuple[tuple[str, type[msgspec.Struct], str], ...] = (
    ("neo4j", Neo4jSettings, "KGS_NEO4J_"),
    ("local", LocalServerSettings, "KGS_NEO4J_"),
    ("embedding", EmbeddingSettings, "KGS_EMBEDDING_"),
    ("ingest", IngestSettings, "KGS_INGEST_"),
    ("llm", LlmSettings, "KGS_LLM_"),
    ("generation", GenerationSettings, "KGS_GENERATION_"),
    ("api", ApiSettings, "KGS_API_"),
    ("pipeline", PipelineSettings, "KGS_PIPELINE_"),
    ("answer", AnswerSettings, "KGS_ANSWER_"),
    ("conflicts", ConflictSettings, "KGS_CONFLICT_"),
    ("text_cache", TextCacheSettings, "KGS_"),
    ("records", RecordSettings, "KGS_RECORDS_"),
    ("ops", OpsSettings, "KGS_OPS_"),
    ("versions", VersionSettings, "KGS_VERSIONS_"),
    ("review", ReviewSettings, "KGS_REVIEW_"),
    ("escalations", EscalationSettings, "KGS_ESCALATION_"),
    ("mcp", McpSettings, "KGS_MCP_"),
    ("health", HealthSettings, "KGS_HEALTH_"),
    ("telemetry", TelemetrySettings, "KGS_OTEL_"),
)
GIVEN_FIELDS = frozenset({"home", "keys", "cypher_dir"})  # passed by from_env, not read
