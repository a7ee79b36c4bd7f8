"""Optional LLM answer synthesis (KGS_GENERATION_*), with the provider of KGS_LLM_*."""

from __future__ import annotations

import msgspec

__all__ = ["GenerationSettings"]


class GenerationSettings(msgspec.Struct, frozen=True, kw_only=True):
    """Bounds of the generation stage (service/answer/generation.py, docs/generation.md). It
    runs only when a provider is configured (KGS_LLM_BASE_URL) and the request asks for it
    (`generate`, by default `default`)."""

    default: bool = False  # a request that does not say `generate`
    max_sentences: int = 8  # lines of the reply kept, at most
    sentence_chars: int = 400  # a longer line is dropped
    evidence_items: int = 24  # evidence sentences the model is shown, in pack order
    evidence_chars: int = 600  # of each
    max_output_tokens: int = 600  # tokens a written answer may use
    timeout_s: float = 20.0  # the whole provider call; then the composed answer is given
