"""Embedding spaces without a database: model specs, the names a model's vectors and indexes
get (and that only those pass into a schema command), and truncation to fewer dimensions."""

from __future__ import annotations

import numpy as np
import pytest

from ingest.embeddings import ModelRoster, SentenceTransformerEmbedder
from service.db.cypher_registry import CypherRegistry
from service.db.graph import Graph
from service.embedding_space import (
    ModelSpecError,
    parse_model_spec,
    space_for,
)
from service.scope import scope_key
from service.settings import EmbeddingSettings
from service.settings.environment import project_root


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("all-MiniLM-L6-v2", ("all-MiniLM-L6-v2", 384)),
        ("all-MiniLM-L6-v2@256", ("all-MiniLM-L6-v2", 256)),
        (
            " sentence-transformers/all-mpnet-base-v2@768 ",
            ("sentence-transformers/all-mpnet-base-v2", 768),
        ),
        ("/models/with@sign/in-path@128", ("/models/with@sign/in-path", 128)),
    ],
)
def test_model_specs(spec: str, expected: tuple[str, int]) -> None:
    assert parse_model_spec(spec, 384) == expected


@pytest.mark.parametrize("spec", ["", "@256", "model@", "model@0", "model@x", "model@99999"])
def test_bad_model_specs_are_refused(spec: str) -> None:
    with pytest.raises(ModelSpecError):
        parse_model_spec(spec, 384)


def test_the_first_model_keeps_the_historical_names_and_others_get_their_own() -> None:
    first = space_for("all-MiniLM-L6-v2", 384, original=True)
    assert (first.vector_property, first.index) == ("embedding", "paragraph_embedding")
    assert first.scope_index("kitchen") == f"paragraph_embedding_{scope_key('kitchen')}"
    smaller, other = space_for("all-MiniLM-L6-v2", 256), space_for("all-MiniLM-L6-v2", 128)
    assert smaller.name == "all-MiniLM-L6-v2@256"
    assert smaller.vector_property.startswith("embedding_m") and len(smaller.vector_property) == 19
    assert smaller.index == "paragraph_" + smaller.vector_property
    assert len({first.vector_property, smaller.vector_property, other.vector_property}) == 3
    assert space_for("all-MiniLM-L6-v2", 256) == smaller  # derived, so every process agrees


class _NoDriver:
    def session(self, **_: object) -> None:
        raise AssertionError("a refused schema command must not reach Neo4j")


@pytest.mark.parametrize(
    "prop", ["embedding_x", "embedding_m0123abc", "p.text} DETACH DELETE p //", "embeddingHash"]
)
def test_only_a_model_property_is_put_into_a_schema_command(prop: str) -> None:
    registry = CypherRegistry.load(project_root() / "cypher")
    graph = Graph(_NoDriver(), registry, database="neo4j", query_timeout_s=1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="refused"):
        graph.schema("embeddings/model_vector_index", vector_property=prop, indexName="x",
                     dimensions=8)  # fmt: skip


def test_fewer_dimensions_are_the_first_ones_normalised_again() -> None:
    full = SentenceTransformerEmbedder(EmbeddingSettings())
    cut = ModelRoster(EmbeddingSettings()).for_space(space_for("all-MiniLM-L6-v2", 256))
    texts = ["Pumice floats on water.", "Basalt columns are hexagonal."]
    whole, short = np.asarray(full.embed(texts)), np.asarray(cut.embed(texts))
    assert whole.shape == (2, 384) and short.shape == (2, 256)
    assert np.allclose(np.linalg.norm(short, axis=1), 1.0, atol=1e-5)
    expected = whole[:, :256] / np.linalg.norm(whole[:, :256], axis=1, keepdims=True)
    assert np.allclose(short, expected, atol=1e-5)
