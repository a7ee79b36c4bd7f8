"""The real model: the one-batch path (questions, small groups) gives what `encode` gives, traced
or not."""

from __future__ import annotations

import math
from collections.abc import Sequence

import msgspec
import pytest

from ingest import traced_model
from ingest.embeddings import SentenceTransformerEmbedder
from ingest.traced_model import trace_encoder

TEXTS = [
    "What is water glass?",
    "Compare the release procedure of the staging cluster with production, step by step.",
    "水玻璃是什么？",
    "",
]


def _same(a: Sequence[Sequence[float]], b: Sequence[Sequence[float]]) -> bool:
    return len(a) == len(b) and all(
        max(abs(x - y) for x, y in zip(u, v, strict=True)) < 1e-5 for u, v in zip(a, b, strict=True)
    )


def test_one_batch_path_equals_encode(embedder: SentenceTransformerEmbedder) -> None:
    model = embedder._load()
    expected = model.encode(TEXTS, normalize_embeddings=True, convert_to_numpy=True).tolist()
    got = embedder._encode_now(TEXTS)  # 4 texts: one batch
    assert _same(got, expected)
    assert all(math.isclose(sum(x * x for x in v), 1.0, rel_tol=1e-5) for v in got)
    # Padding to the batch's longest text leaves a shorter text's vector as it is alone.
    assert _same(embedder._encode_now(TEXTS[:1]), got[:1])
    assert not _same(got[:1], got[1:2])


def test_more_texts_than_a_batch_give_the_same_vectors(
    embedder: SentenceTransformerEmbedder,
) -> None:
    batched = SentenceTransformerEmbedder(msgspec.structs.replace(embedder.settings, batch_size=2))
    batched._model = embedder._load()  # the same loaded model, taken through encode()
    assert _same(batched._encode_now(TEXTS), embedder._encode_now(TEXTS))


def test_more_texts_than_a_batch_run_traced_in_batches_in_the_texts_order(
    embedder: SentenceTransformerEmbedder,
) -> None:
    model = embedder._load()
    assert embedder._traced is not None
    batched = SentenceTransformerEmbedder(msgspec.structs.replace(embedder.settings, batch_size=2))
    batched._model, batched._traced = model, embedder._traced
    texts = [*TEXTS, "Glass is an amorphous solid.", "Why?"]  # three batches of two
    expected = model.encode(texts, normalize_embeddings=True, convert_to_numpy=True).tolist()
    assert _same(batched._encode_now(texts), expected)


def test_a_model_with_a_default_prompt_goes_through_encode(
    embedder: SentenceTransformerEmbedder,
) -> None:
    model = embedder._load()
    model.prompts["query"], model.default_prompt_name = "query: ", "query"
    try:
        prompted = embedder._encode_now(TEXTS[:1])
        expected = model.encode(TEXTS[:1], normalize_embeddings=True).tolist()
    finally:
        del model.prompts["query"]
        model.default_prompt_name = None
    assert _same(prompted, expected)
    assert not _same(prompted, embedder._encode_now(TEXTS[:1]))


def test_the_default_model_runs_traced_with_the_same_vectors(
    embedder: SentenceTransformerEmbedder,
) -> None:
    model = embedder._load()
    assert embedder._traced is not None  # so the tests above compare the traced graph
    plain = SentenceTransformerEmbedder(msgspec.structs.replace(embedder.settings, traced=False))
    plain._model = model  # loaded, not traced: the eager one-batch path
    assert _same(plain._encode_now(TEXTS), embedder._encode_now(TEXTS))
    # a text longer than the model's 256 tokens is cut alike on both paths
    long = ["water glass " * 400, "short"]
    assert _same(embedder._traced(long), model.encode(long, normalize_embeddings=True).tolist())


def test_models_of_another_shape_are_not_traced(embedder: SentenceTransformerEmbedder) -> None:
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.models import Normalize, Pooling

    model = embedder._load()
    cls_pooled = SentenceTransformer(
        modules=[model[0], Pooling(model.get_embedding_dimension(), "cls"), Normalize()],
        device="cpu",
    )
    assert trace_encoder(cls_pooled) is None


def test_a_traced_graph_that_differs_from_the_model_is_not_used(
    embedder: SentenceTransformerEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = embedder._load()
    assert trace_encoder(model) is not None
    own = traced_model.eager_vectors
    monkeypatch.setattr(
        traced_model,
        "eager_vectors",
        lambda m, texts: [[x + 1e-3 for x in v] for v in own(m, texts)],
    )
    assert trace_encoder(model) is None
