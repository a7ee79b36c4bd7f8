"""A large scope's own vector index: created, used by retrieval, dropped when the scope shrinks.
The size threshold is lowered so a handful of paragraphs counts as large."""

from __future__ import annotations

from pathlib import Path

import pytest

from ingest.embeddings import SentenceTransformerEmbedder
from ingest.pipeline import IngestOptions, ingest
from service.db import Graph
from service.embedding_space import DEFAULT_SPACE
from service.pipeline.plan import plan_query
from service.pipeline.retrieval import retrieve_spans
from service.scope import scope_label
from service.settings import IngestSettings, PipelineSettings

THRESHOLD = IngestSettings(scope_vector_index_min_paragraphs=6, scope_label_batch_paragraphs=2)
TOPICS = ["kettles boil water", "routers forward packets", "glaciers carve valleys",
          "violins have four strings", "bees pollinate flowers"]  # fmt: skip


def _write(root: Path, scope: str, count: int) -> None:
    folder = root / scope
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.md"):
        old.unlink()
    for i, topic in enumerate(TOPICS[:count]):
        body = f"# Topic {i}\n\n{topic.capitalize()}.\n\nMore about how {topic} every day.\n"
        (folder / f"topic{i}.md").write_text(body, encoding="utf-8")


def test_large_scope_gets_its_own_index_and_retrieval_uses_it(
    graph: Graph, scope: str, embedder: SentenceTransformerEmbedder, tmp_path: Path
) -> None:
    _write(tmp_path, scope, 5)  # 10 paragraphs: over the threshold
    report = ingest(graph, embedder, tmp_path, IngestOptions(prune=True), THRESHOLD)
    assert report.vector_indexes == {scope: "online"}
    labelled = graph.read_text(
        "MATCH (p:Paragraph {scope: $scope}) "
        "RETURN count(p) AS all, sum(CASE WHEN $label IN labels(p) THEN 1 ELSE 0 END) AS own",
        {"scope": scope, "label": scope_label(scope)},
    )[0]
    assert labelled["all"] == labelled["own"] == 10  # labelled in batches of two

    settings = PipelineSettings(exact_vector_max_paragraphs=6)
    plan = plan_query("which insects pollinate flowers?", scope)
    vector = embedder.embed([plan.query])[0]
    retrieval = retrieve_spans(graph.child(), plan, vector, settings)
    assert retrieval.vector_mode == "scope_index"
    assert retrieval.hits[0].path.endswith("topic4.md")
    assert {h.path.split("/")[0] for h in retrieval.hits} == {scope}

    _write(tmp_path, scope, 2)  # 4 paragraphs: under the threshold, the index goes
    report = ingest(graph, embedder, tmp_path, IngestOptions(prune=True), THRESHOLD)
    assert report.vector_indexes == {scope: "dropped"}
    assert not graph.read("scope/vector_index_state", indexName=DEFAULT_SPACE.scope_index(scope))


@pytest.mark.parametrize("label", ["Paragraph", "Scope_s0123", "Scope_s0123456789abcdef) DETACH"])
def test_only_a_scope_hash_label_is_substituted_into_a_schema_statement(
    graph: Graph, label: str
) -> None:
    with pytest.raises(ValueError, match="refused label"):
        graph.schema("scope/paragraph_vector_index", label=label, indexName="never_created")
    assert not graph.read("scope/vector_index_state", indexName="never_created")
