"""Configuration: small frozen Structs with named defaults, read once from the environment.

Every limit has a name, a unit in that name and a default, declared once on its field; nothing is
unbounded by accident. `Settings.from_env` reads every section (environment.py says how a field
finds its variable); the sections are passed down from there, never rebuilt inside a stage.
The variables are listed in docs/operations.md.
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
from service.settings.ingestion import IngestSettings
from service.settings.models import EmbeddingSettings, LlmSettings
from service.settings.records import RecordSettings
from service.settings.review import ReviewSettings
from service.settings.versions import VersionSettings

__all__ = [
    "AnswerSettings",
    "ApiKey",
    "ApiSettings",
    "ConflictSettings",
    "EmbeddingSettings",
    "EscalationSettings",
    "FactSettings",
    "GenerationSettings",
    "IngestSettings",
    "LlmSettings",
    "LocalServerSettings",
    "Neo4jSettings",
    "PipelineSettings",
    "RecordSettings",
    "ReviewSettings",
    "Settings",
    "SettingsError",
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
    use_docker: Annotated[bool, env_name("KGS_USE_DOCKER"), AUTO_IS_ON] = True
    llm: LlmSettings = msgspec.field(default_factory=LlmSettings)
    generation: GenerationSettings = msgspec.field(default_factory=GenerationSettings)
    api: ApiSettings = msgspec.field(default_factory=ApiSettings)
    pipeline: PipelineSettings = msgspec.field(default_factory=PipelineSettings)
    answer: AnswerSettings = msgspec.field(default_factory=AnswerSettings)
    conflicts: ConflictSettings = msgspec.field(default_factory=ConflictSettings)
    text_cache: TextCacheSettings = msgspec.field(default_factory=TextCacheSettings)
    records: RecordSettings = msgspec.field(default_factory=RecordSettings)
    versions: VersionSettings = msgspec.field(default_factory=VersionSettings)
    review: ReviewSettings = msgspec.field(default_factory=ReviewSettings)
    escalations: EscalationSettings = msgspec.field(default_factory=EscalationSettings)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        root = project_root()
        home = Path(env.get("KGS_HOME") or root / ".kgs")
        return read_section(
            cls, env, "KGS_",
            neo4j=read_section(Neo4jSettings, env, "KGS_NEO4J_"),
            local=read_section(LocalServerSettings, env, "KGS_NEO4J_", home=home / "neo4j"),
            embedding=read_section(EmbeddingSettings, env, "KGS_EMBEDDING_"),
            ingest=read_section(IngestSettings, env, "KGS_INGEST_"),
            cypher_dir=Path(env.get("KGS_CYPHER_DIR") or root / "cypher"),
            llm=read_section(LlmSettings, env, "KGS_LLM_"),
            generation=read_section(GenerationSettings, env, "KGS_GENERATION_"),
            api=read_section(ApiSettings, env, "KGS_API_", keys=api_keys(env)),
            pipeline=read_section(PipelineSettings, env, "KGS_PIPELINE_"),
            answer=read_section(AnswerSettings, env, "KGS_ANSWER_"),
            conflicts=read_section(ConflictSettings, env, "KGS_CONFLICT_"),
            text_cache=read_section(TextCacheSettings, env, "KGS_"),
            records=read_section(RecordSettings, env, "KGS_RECORDS_"),
            versions=read_section(VersionSettings, env, "KGS_VERSIONS_"),
            review=read_section(ReviewSettings, env, "KGS_REVIEW_"),
            escalations=read_section(EscalationSettings, env, "KGS_ESCALATION_"),
        )  # fmt: skip
