"""Answers computed in worker processes (service/api/answer_pool.py) against the real Neo4j: the
same answer as in the service process, errors that cross the boundary as their problem, and a
killed worker replaced without restarting the service."""

from __future__ import annotations

import os
import signal
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient
from prometheus_client.parser import text_string_to_metric_families

from ingest.embeddings import SentenceTransformerEmbedder
from service.api import create_app
from service.api.state import AppResources
from service.db import Graph
from service.db.selection import Connection
from service.question.runner import answer_question
from service.settings import Settings
from tests.integration.conftest import delete_scope
from tests.integration.test_api_flows import BASALT, GRANITE, OBSIDIAN

SCOPE = f"pool-{uuid.uuid4().hex[:8]}"
API_MAX_QUERY_CHARS = 5000  # above the pipeline's own 2000: the worker raises, not the handler
QUESTIONS = (
    "What is basalt?",
    "Compare basalt and granite.",
    "How is obsidian worked into blades?",
    "What is the boiling point of mercury?",  # nothing in the scope: abstains
)


@pytest.fixture(scope="module")
def pool_client(connection: Connection, graph: Graph) -> Iterator[TestClient[Any]]:
    """An app that opens its own driver and model, so it starts two answer workers."""
    env = {
        **os.environ, "NEO4J_URI": connection.uri, "NEO4J_USER": connection.user,
        "NEO4J_PASSWORD": connection.password, "NEO4J_DATABASE": connection.database,
        "KGS_API_DEV_MODE": "on", "KGS_API_ANSWER_PROCESSES": "2", "KGS_API_ANSWER_THREADS": "2",
        "KGS_API_MAX_QUERY_CHARS": str(API_MAX_QUERY_CHARS),
    }  # fmt: skip
    owned = AppResources(Settings.from_env(env))  # no graph or embedder given: it opens its own
    with TestClient(app=create_app(resources=owned)) as client:
        client.app.state["test_resources"] = owned
        for name, text in (("basalt.md", BASALT), ("granite.md", GRANITE),
                           ("obsidian.md", OBSIDIAN)):  # fmt: skip
            files = {"file": (name, text.encode(), "text/markdown")}
            response = client.post("/v1/documents", files=files, data={"scope": SCOPE})
            assert response.status_code == 201, response.text
        yield client
    delete_scope(graph, SCOPE)


def resources(client: TestClient[Any]) -> AppResources:
    found: AppResources = client.app.state["test_resources"]
    return found


def worker_pids(client: TestClient[Any]) -> set[int]:
    pool = resources(client).answer_pool
    assert pool is not None
    return {pid for pid in pool.pids if pid is not None}


def ask(client: TestClient[Any], query: str) -> Any:
    return client.post("/v1/query", json={"query": query, "scope": SCOPE})


def test_the_pool_is_started_and_owns_no_model(pool_client: TestClient[Any]) -> None:
    assert resources(pool_client).answer_pool is not None
    assert ask(pool_client, QUESTIONS[0]).status_code == 200
    pids = worker_pids(pool_client)
    assert pids and os.getpid() not in pids
    for pid in pids:  # the workers never import PyTorch: the model is the service's
        assert "libtorch" not in Path(f"/proc/{pid}/maps").read_text()


def test_worker_answers_equal_the_in_process_ones(
    pool_client: TestClient[Any], graph: Graph, embedder: SentenceTransformerEmbedder
) -> None:
    for query in QUESTIONS:
        response = ask(pool_client, query)
        assert response.status_code == 200, response.text
        body = response.json()
        local = answer_question(graph, embedder, query, scope=SCOPE)
        assert body["status"] == local["status"], query
        assert body["answer"] == local["answer"], query
        assert [c["quote"] for c in body["citations"]] == [
            c["quote"] for c in local["citations"]
        ], query
        assert body["trace"]["traceId"] == response.headers["X-Trace-Id"]
        stored = pool_client.get(f"/v1/traces/{body['traceId']}")
        assert stored.status_code == 200 and stored.json()["trace"]["plan"] == body["trace"]["plan"]


def test_workers_report_their_memory_and_caches_in_the_service_metrics(
    pool_client: TestClient[Any],
) -> None:
    for query in QUESTIONS[:3]:  # enough answers that each worker has given one
        assert ask(pool_client, query).status_code == 200
    pids = worker_pids(pool_client)
    text = pool_client.get("/metrics").text
    reported: dict[str, dict[str, float]] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name.startswith("kgs_answer_worker_"):
                key = sample.labels["worker"] + "/" + sample.labels.get("kind", "")
                reported.setdefault(key, {})[sample.name] = sample.value
    answered = {key.split("/")[0] for key in reported}
    assert answered and answered <= {str(slot) for slot in range(len(pids))}, reported
    for slot in answered:  # a worker holds the pipeline, its driver and caches: tens of MiB
        assert reported[f"{slot}/"]["kgs_answer_worker_resident_bytes"] > 50 * 2**20
        text_cache = reported[f"{slot}/text"]
        assert (
            0
            < text_cache["kgs_answer_worker_text_cache_bytes"]
            <= text_cache["kgs_answer_worker_text_cache_budget_bytes"]
        )
        assert text_cache["kgs_answer_worker_text_cache_misses_total"] > 0
    # the service's own caches keep their families, without a worker label
    assert 'kgs_text_cache_bytes{kind="text"}' in text


def test_an_error_in_a_worker_is_answered_as_its_problem(pool_client: TestClient[Any]) -> None:
    response = ask(pool_client, "basalt " * 400)  # 2,800 characters: the API lets it through
    assert response.status_code == 400
    assert response.headers["content-type"].startswith("application/problem+json")
    body = response.json()
    assert "longer than 2000 characters" in body["detail"]
    assert body["traceId"] == response.headers["X-Trace-Id"]


def test_a_killed_worker_is_replaced(pool_client: TestClient[Any]) -> None:
    assert ask(pool_client, QUESTIONS[0]).status_code == 200
    before = worker_pids(pool_client)
    killed = min(before)
    os.kill(killed, signal.SIGKILL)
    statuses = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        response = ask(pool_client, QUESTIONS[0])
        statuses.append(response.status_code)
        if response.status_code == 200:
            break
        assert response.status_code == 503, response.text
        assert response.headers["content-type"].startswith("application/problem+json")
    assert statuses[-1] == 200 and statuses.count(503) <= 1, statuses
    while killed in worker_pids(pool_client) and time.monotonic() < deadline:
        time.sleep(0.2)  # a worker that died young is replaced after a pause (no respawn loop)
    after = worker_pids(pool_client)
    assert killed not in after and len(after) == len(before)  # replaced, the others kept
    assert before - {killed} <= after
