"""A large scope with both its own indexes, the question's vector at hand: the vector search runs
beside the name read and full-text and leads come in one statement
(retrieval/channels_scope_index), with the same candidates, scores and modes as one statement
per channel, which retrieve_spans still uses while the embedding computes.
The size thresholds are lowered so a handful of paragraphs counts as large."""

from __future__ import annotations

from concurrent.futures import Future
from pathlib import Path

import pytest

from ingest.embeddings import SentenceTransformerEmbedder
from ingest.pipeline import IngestOptions, ingest
from service.db import Graph
from service.pipeline import channels, retrieval
from service.pipeline.plan import plan_query
from service.scope import scope_label
from service.settings import IngestSettings, PipelineSettings

THRESHOLD = IngestSettings(
    scope_vector_index_min_paragraphs=6,
    scope_fulltext_index_min_paragraphs=6,
    scope_label_batch_paragraphs=4,
)
SETTINGS = PipelineSettings(exact_vector_max_paragraphs=6, exact_fulltext_max_paragraphs=6)
TOPICS = ["kettles boil water", "routers forward packets", "glaciers carve valleys",
          "violins have four strings", "bees pollinate flowers"]  # fmt: skip
QUESTIONS = ["which insects pollinate flowers?", "what is a kettle?", "how do glaciers move?",
             "compare kettles and routers", "violin"]  # fmt: skip


@pytest.fixture
def large_scope(graph: Graph, scope: str, embedder: SentenceTransformerEmbedder,
                tmp_path: Path) -> str:  # fmt: skip
    folder = tmp_path / scope
    folder.mkdir()
    for i, topic in enumerate(TOPICS):
        name = topic.split()[0].rstrip("s")
        front = f"---\nid: {name}\ntitle: {name.capitalize()}\nkind: concept\n---\n"
        body = f"# {name.capitalize()}\n\n{topic.capitalize()}.\n\nMore about how {topic} daily.\n"
        (folder / f"topic{i}.md").write_text(front + body, encoding="utf-8")
    report = ingest(graph, embedder, tmp_path, IngestOptions(prune=True), THRESHOLD)
    assert report.vector_indexes == {scope: "online"}
    return scope


@pytest.mark.parametrize("question", QUESTIONS)
def test_one_statement_finds_what_one_statement_per_channel_finds(
    graph: Graph, large_scope: str, embedder: SentenceTransformerEmbedder, question: str
) -> None:
    plan = plan_query(question, large_scope)
    vector = embedder.embed([plan.query])[0]
    one = retrieval.retrieve_spans(graph.child(), plan, vector, SETTINGS)
    assert one.vector_mode == one.fulltext_mode == "scope_index"
    run = graph.child()  # an embedding still computing: the per-channel reads run instead
    waiting = retrieval.retrieve_spans(run, plan, _Pending(vector), SETTINGS)
    statements = {c.statement for c in run.calls}
    assert "retrieval/channels_scope_index" not in statements
    assert "retrieval/vector_paragraphs_scope_index" in statements
    assert one.hits == waiting.hits
    assert one.documents == waiting.documents and one.lucene == waiting.lucene


def test_the_vector_search_runs_beside_the_names_and_the_rest_is_one_statement(
    graph: Graph, large_scope: str, embedder: SentenceTransformerEmbedder
) -> None:
    plan = plan_query("what is a kettle?", large_scope)
    vector = embedder.embed([plan.query])[0]
    retrieval.retrieve_spans(graph.child(), plan, vector, SETTINGS)  # caches the scope's size
    run = graph.child()
    found = retrieval.retrieve_spans(run, plan, vector, SETTINGS)
    assert sorted(c.statement for c in run.calls) == [
        "retrieval/channels_scope_index", "retrieval/hit_details",
        "retrieval/knowledge_point_candidates", "retrieval/vector_paragraphs_scope_index",
    ]  # fmt: skip
    assert found.hits and found.hits[0].path.endswith("topic0.md")
    assert "knowledgePoint" in found.hits[0].ranks  # the named concept's lead paragraph


class _Pending(Future[list[float]]):
    """A Future that is not done when retrieval looks, and resolves when it waits for it."""

    def __init__(self, vector: list[float]) -> None:
        super().__init__()
        self._vector = vector
        self.set_running_or_notify_cancel()

    def result(self, timeout: float | None = None) -> list[float]:
        return self._vector


def test_an_own_index_is_not_used_until_every_paragraph_is_labelled(
    graph: Graph, large_scope: str, embedder: SentenceTransformerEmbedder
) -> None:
    label = scope_label(large_scope)
    graph.driver.execute_query(
        f"MATCH (p:{label}) WITH p LIMIT 1 REMOVE p:{label}", database_=graph.database
    )  # as between writing new paragraphs and labelling them
    channels._forget_size(large_scope)
    plan = plan_query("which insects pollinate flowers?", large_scope)
    found = retrieval.retrieve_spans(graph.child(), plan, embedder.embed([plan.query])[0], SETTINGS)
    assert found.fulltext_mode == "exact" and found.vector_mode.startswith("index:")
    assert found.hits[0].path.endswith("topic4.md")  # the shared index still finds it
    channels._forget_size(large_scope)
