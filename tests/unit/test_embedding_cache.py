"""The answering side's cache of text vectors: only unseen texts reach the model, in one batch;
least recently used entries go first, within a byte budget; cached vectors cannot be changed
through a result."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from ingest.embeddings import SentenceTransformerEmbedder
from service.settings import EmbeddingSettings, Settings, SettingsError


class _Counting(SentenceTransformerEmbedder):
    """The cache in front of a stand-in model that records each batch it is given."""

    def __init__(self, entries: int) -> None:
        """A budget of `entries` one-letter texts' vectors."""
        super().__init__(EmbeddingSettings(cache_bytes=entries * _one_entry_bytes()))
        self.batches: list[list[str]] = []

    def _encode(self, texts: Sequence[str]) -> list[list[float]]:
        self.batches.append(list(texts))
        return [[float(len(t)), float(sum(map(ord, t)))] for t in texts]


def _one_entry_bytes() -> int:
    probe = SentenceTransformerEmbedder(EmbeddingSettings(cache_bytes=2**20))
    probe._encode = lambda texts: [[1.0, 2.0] for _ in texts]  # type: ignore[method-assign]
    probe.embed(["z"])
    return probe.cache_bytes


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
    assert embedder.cache_entries == 2 and embedder.cache_bytes == 2 * _one_entry_bytes()
    embedder.forget()
    assert (embedder.cache_entries, embedder.cache_bytes) == (0, 0)
    embedder.embed(["a", "b"])
    assert embedder.batches[-1] == ["a", "b"]


def test_a_vector_larger_than_the_budget_is_not_kept() -> None:
    embedder = _Counting(entries=1)
    embedder.embed(["a long question " * 20])
    assert (embedder.cache_entries, embedder.cache_bytes) == (0, 0)
    embedder.embed(["a"])
    assert embedder.cache_entries == 1


def test_results_are_copies_and_no_cache_means_every_call_encodes() -> None:
    embedder = _Counting(entries=4)
    embedder.embed(["x"])[0][0] = -1.0
    assert embedder.embed(["x"])[0][0] == 1.0
    plain = _Counting(entries=0)
    plain.embed(["x"])
    plain.embed(["x"])
    assert plain.batches == [["x"], ["x"]]


def test_only_the_answering_side_caches() -> None:
    settings = Settings.from_env({"KGS_EMBEDDING_QUERY_CACHE_BYTES": "4096"}).embedding
    assert settings.cache_bytes == 0 and settings.for_queries().cache_bytes == 4096
    assert Settings.from_env({"KGS_EMBEDDING_QUERY_CACHE_BYTES": "0"}).embedding \
        .for_queries().cache_bytes == 0  # fmt: skip
    with pytest.raises(SettingsError, match="KGS_EMBEDDING_QUERY_CACHE_BYTES"):
        Settings.from_env({"KGS_EMBEDDING_QUERY_CACHE_BYTES": "-1"})
