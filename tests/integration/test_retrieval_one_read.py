"""A large scope with both its own indexes: its names come from the process's cache and its
channels from one statement (retrieval/channels_scope_index, the vector search included when
the question's vector is at hand), with the same candidates, scores and modes as one statement
per channel. A change in the scope's feed makes the cached names untrusted until reloaded.
The size thresholds are lowered so a handful of paragraphs counts as large."""

from __future__ import annotations

import time
from concurrent.futures import Future
from pathlib import Path

import msgspec
import pytest

from ingest.embeddings import SentenceTransformerEmbedder
from ingest.pipeline import IngestOptions, ingest
from service.db import Graph
from service.pipeline import channels, retrieval
from service.pipeline.name_cache import ScopeNames, cached_names, forget_names
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


def _cached(graph: Graph, scope: str, settings: PipelineSettings = SETTINGS) -> ScopeNames:
    """Waits for the background read of the scope's names that cached_names starts."""
    deadline = time.monotonic() + 30
    while (names := cached_names(graph, scope, settings)) is None:
        assert time.monotonic() < deadline, "the scope's names were never cached"
        time.sleep(0.05)
    return names


@pytest.mark.parametrize("question", QUESTIONS)
def test_cached_names_and_one_statement_find_what_the_name_search_finds(
    graph: Graph, large_scope: str, embedder: SentenceTransformerEmbedder, question: str
) -> None:
    plan = plan_query(question, large_scope)
    vector = embedder.embed([plan.query])[0]
    searched = retrieval.retrieve_spans(  # no cache: names read by full-text search
        graph.child(), plan, vector, msgspec.structs.replace(SETTINGS, name_cache_bytes=0)
    )
    _cached(graph, large_scope)
    one = retrieval.retrieve_spans(graph.child(), plan, vector, SETTINGS)
    assert one.vector_mode == one.fulltext_mode == "scope_index"
    run = graph.child()  # an embedding still computing: the vector search follows the wait
    waiting = retrieval.retrieve_spans(run, plan, _Pending(vector), SETTINGS)
    assert [c.statement for c in run.calls] == [
        "retrieval/channels_scope_index", "retrieval/vector_paragraphs_scope_index",
        "retrieval/hit_details",
    ]  # fmt: skip
    assert one.hits == waiting.hits == searched.hits
    assert one.documents == waiting.documents == searched.documents
    assert one.names == searched.names and one.lucene == waiting.lucene == searched.lucene


def test_with_the_names_cached_and_the_vector_at_hand_retrieval_is_two_statements(
    graph: Graph, large_scope: str, embedder: SentenceTransformerEmbedder
) -> None:
    plan = plan_query("what is a kettle?", large_scope)
    vector = embedder.embed([plan.query])[0]
    channels.scope_size(graph, large_scope, SETTINGS)  # cached for a minute
    forget_names(graph, large_scope)
    first = graph.child()  # nothing cached yet: the names are read by full-text search
    retrieval.retrieve_spans(first, plan, vector, SETTINGS)
    assert [c.statement for c in first.calls] == [
        "retrieval/knowledge_point_candidates", "retrieval/channels_scope_index",
        "retrieval/hit_details",
    ]  # fmt: skip
    _cached(graph, large_scope)
    run = graph.child()
    found = retrieval.retrieve_spans(run, plan, vector, SETTINGS)
    assert [c.statement for c in run.calls] == [
        "retrieval/channels_scope_index", "retrieval/hit_details",
    ]  # fmt: skip
    assert found.hits and found.hits[0].path.endswith("topic0.md")
    assert "knowledgePoint" in found.hits[0].ranks  # the named concept's lead paragraph


def test_a_name_written_after_the_cache_was_filled_is_found_by_the_next_question(
    graph: Graph, large_scope: str, embedder: SentenceTransformerEmbedder, tmp_path: Path
) -> None:
    before = _cached(graph, large_scope)
    plan = plan_query("what is a zeppelin?", large_scope)
    vector = embedder.embed([plan.query])[0]
    missing = retrieval.retrieve_spans(graph.child(), plan, vector, SETTINGS)
    assert not missing.names
    folder = tmp_path / "more" / large_scope
    folder.mkdir(parents=True)
    (folder / "zeppelin.md").write_text(
        "---\nid: zeppelin\ntitle: Zeppelin\nkind: concept\n---\n# Zeppelin\n\n"
        "A zeppelin is a rigid airship.\n",
        encoding="utf-8",
    )  # another process's ingest, as far as the cache can tell: only the feed says so
    ingest(graph, embedder, folder.parent, IngestOptions(), THRESHOLD)
    run = graph.child()
    found = retrieval.retrieve_spans(run, plan, vector, SETTINGS)
    assert [n.id for n in found.names] == ["zeppelin"]
    assert found.hits[0].path.endswith("zeppelin.md")
    assert "retrieval/knowledge_point_candidates" in [c.statement for c in run.calls]
    after = _cached(graph, large_scope)  # reloaded in the background, at the new position
    assert after.seq > before.seq and after.candidates("zeppelins")


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
