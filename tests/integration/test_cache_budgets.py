"""The app with small cache budgets (KGS_TEXT_CACHE_BYTES, KGS_FUNCTION_CACHE_BYTES,
KGS_API_TRACE_RETENTION_BYTES), driven past them by distinct questions through POST /v1/query
against the real Neo4j: /metrics shows each kind's bytes within its budget while entries were
evicted, and every question is answered, the first one again, after its paragraphs left the
caches, with the same answer.

Answers run in threads of the app's process here (borrowed graph and model: no answer workers),
so the /metrics read is of the caches the answers filled."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient
from prometheus_client.parser import text_string_to_metric_families

from ingest.embeddings import SentenceTransformerEmbedder
from ingest.pipeline import IngestOptions, ingest
from service.api import create_app
from service.api.state import AppResources
from service.db import Graph
from service.settings import Settings, TextCacheSettings, project_root
from service.text import text_cache

SOURCE_SCOPE = "waterglass"  # 8 shipped documents; 8 questions read some 50 of their paragraphs
# At the default budgets those 50 paragraphs take about 66 KB (text) as estimated, so these hold
# a fraction of them.
TEXT_BUDGET_BYTES = 16_384
FUNCTION_BUDGET_BYTES = 16_384  # some 2,000 short-text results a question at the default
PHRASINGS = ("what is {}?",)
KINDS = ("text", "function")
BUDGETS = (TEXT_BUDGET_BYTES, FUNCTION_BUDGET_BYTES)
TRACE_BUDGET_BYTES = (
    200_000  # a few answers' traces: each is counted as its response's JSON, 40 to 50 KB
)
PROCESS_CACHES = ("question_vectors", "traces", "knowledge_point_names")


@pytest.fixture
def small_budget_client(
    graph: Graph, embedder: SentenceTransformerEmbedder, scope: str, tmp_path: Path
) -> Iterator[TestClient[Any]]:
    env = {**os.environ, "KGS_TEXT_CACHE_BYTES": str(TEXT_BUDGET_BYTES),
           "KGS_FUNCTION_CACHE_BYTES": str(FUNCTION_BUDGET_BYTES),
           "KGS_API_TRACE_RETENTION_BYTES": str(TRACE_BUDGET_BYTES),
           "KGS_API_DEV_MODE": "on"}  # fmt: skip
    settings = Settings.from_env(env)
    shutil.copytree(project_root() / "knowledge_base" / SOURCE_SCOPE, tmp_path / scope)
    report = ingest(graph, embedder, tmp_path, IngestOptions(), settings.ingest)
    assert report.added and report.embedding_failure is None
    resources = AppResources(settings, graph=graph, embedder=embedder)
    try:
        with TestClient(create_app(settings, resources)) as client:
            yield client
    finally:
        text_cache.configure_text_caches(TextCacheSettings())  # the other tests' budgets


def cache_metrics(
    client: TestClient[Any], prefix: str = "kgs_text_cache", label: str = "kind"
) -> dict[str, dict[str, float]]:
    """{kind: {bytes, budget, entries, hits, misses}} from the app's /metrics."""
    response = client.get("/metrics")
    assert response.status_code == 200
    names = {f"{prefix}_bytes": "bytes", f"{prefix}_budget_bytes": "budget",
             f"{prefix}_entries": "entries", f"{prefix}_hits_total": "hits",
             f"{prefix}_misses_total": "misses"}  # fmt: skip
    found: dict[str, dict[str, float]] = {}
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            if sample.name in names:
                found.setdefault(sample.labels[label], {})[names[sample.name]] = sample.value
    return found


def test_caches_driven_past_small_budgets_stay_within_them_and_answers_come_back(
    small_budget_client: TestClient[Any], scope: str
) -> None:
    client = small_budget_client
    before = cache_metrics(client)
    for kind, budget in zip(KINDS, BUDGETS, strict=True):
        assert before[kind]["budget"] == budget  # the environment's budget, applied at start
    listed = client.get("/v1/documents", params={"scope": scope, "limit": 50})
    titles = [item["title"] for item in listed.json()["items"]]
    assert len(titles) >= 8, listed.text
    questions = [p.format(title) for p in PHRASINGS for title in titles]
    answers: list[str] = []
    for question in questions:
        response = client.post("/v1/query", json={"query": question, "scope": scope})
        assert response.status_code == 200, response.text
        body = response.json()
        assert body["status"] == "answered" and body["answer"], (question, body)
        answers.append(body["answer"])

    after = cache_metrics(client)
    held = {stats.kind: stats for stats in text_cache.cache_stats()}  # this process's caches
    for kind in KINDS:
        assert (after[kind]["bytes"], after[kind]["entries"]) == (held[kind].bytes,
                                                                  held[kind].entries)  # fmt: skip
        stats, budget = after[kind], before[kind]["budget"]
        misses = stats["misses"] - before[kind]["misses"]
        assert 0 < stats["bytes"] <= budget, (kind, stats)
        # Every miss stores an entry unless it alone exceeds the budget: more misses than
        # entries held means the least recently used ones went.
        assert stats["entries"] > 0 and misses > 2 * stats["entries"], (kind, stats, misses)
        assert stats["hits"] > before[kind]["hits"], (kind, stats)  # still a working cache

    again = client.post("/v1/query", json={"query": questions[0], "scope": scope})
    assert again.status_code == 200 and again.json()["answer"] == answers[0]
    final = cache_metrics(client)
    assert final["text"]["misses"] > after["text"]["misses"]  # its paragraphs had gone
    assert all(final[kind]["bytes"] <= final[kind]["budget"] for kind in KINDS)
    others = cache_metrics(client, "kgs_cache", "cache")
    assert set(others) == set(PROCESS_CACHES)
    traces = others["traces"]
    assert traces["budget"] == TRACE_BUDGET_BYTES and 0 < traces["bytes"] <= TRACE_BUDGET_BYTES
    assert 0 < traces["entries"] < len(questions)  # the oldest traces went
    vectors = others["question_vectors"]  # the tests' embedder caches nothing (ingest side)
    assert vectors["bytes"] <= vectors["budget"]
    assert others["knowledge_point_names"]["bytes"] == 0  # a small scope: names are searched
