"""The answering side's cache of text vectors: only unseen texts reach the model, in one batch;
least recently used entries go first; cached vectors cannot be changed through a result."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from ingest.embeddings import SentenceTransformerEmbedder
from service.settings import EmbeddingSettings, Settings, SettingsError


class _Counting(SentenceTransformerEmbedder):
    """The cache in front of a stand-in model that records each batch it is given."""

    def __init__(self, entries: int) -> None:
        super().__init__(EmbeddingSettings(cache_entries=entries))
        self.batches: list[list[str]] = []

    def _encode(self, texts: Sequence[str]) -> list[list[float]]:
        self.batches.append(list(texts))
        return [[float(len(t)), float(sum(map(ord, t)))] for t in texts]


def test_only_unseen_texts_are_encoded_once_per_batch() -> None:
    embedder = _Counting(entries=8)
    first = embedder.embed(["alpha", "beta", "alpha"])
    second = embedder.embed(["beta", "gamma"])
    assert embedder.batches == [["alpha", "beta"], ["gamma"]]
    assert first[0] == first[2] and second[0] == first[1]
    assert (embedder.cache_hits, embedder.cache_misses) == (1, 3)


def test_least_recently_used_is_evicted_and_forget_drops() -> None:
    embedder = _Counting(entries=2)
    embedder.embed(["a", "b"])
    embedder.embed(["a"])  # "b" is now the least recently used
    embedder.embed(["c"])
    embedder.embed(["a", "b"])
    assert embedder.batches[-1] == ["b"]
    embedder.forget(["a"])
    embedder.embed(["a"])
    assert embedder.batches[-1] == ["a"]
    embedder.forget()
    embedder.embed(["a", "b"])
    assert embedder.batches[-1] == ["a", "b"]


def test_results_are_copies_and_no_cache_means_every_call_encodes() -> None:
    embedder = _Counting(entries=4)
    embedder.embed(["x"])[0][0] = -1.0
    assert embedder.embed(["x"])[0][0] == 1.0
    plain = _Counting(entries=0)
    plain.embed(["x"])
    plain.embed(["x"])
    assert plain.batches == [["x"], ["x"]]


def test_only_the_answering_side_caches() -> None:
    settings = Settings.from_env({"KGS_EMBEDDING_QUERY_CACHE_ENTRIES": "16"}).embedding
    assert settings.cache_entries == 0 and settings.for_queries().cache_entries == 16
    assert Settings.from_env({"KGS_EMBEDDING_QUERY_CACHE_ENTRIES": "0"}).embedding \
        .for_queries().cache_entries == 0  # fmt: skip
    with pytest.raises(SettingsError, match="KGS_EMBEDDING_QUERY_CACHE_ENTRIES"):
        Settings.from_env({"KGS_EMBEDDING_QUERY_CACHE_ENTRIES": "-1"})
