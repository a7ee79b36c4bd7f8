"""kill -9 in the middle of an embedding model switch (the default model to the same model
truncated to 256 dimensions) leaves one active model whose vectors cover every paragraph, answers
embedded by that model only, and a gap-free change feed. Two kills in one chain: the switching
process itself, then the Neo4j server under the rerun; a last run completes the switch, and
activates the model exactly once.

After each kill `_check` proves:
- exactly one model is active, and it is still the original one until the switch completes;
- every paragraph has the active model's vector;
- the new model's vectors written before the kill are still there (the rerun goes on from them);
- the feed numbers are 1..n, with one `modelActivated` event only once the switch completed;
- a question is answered, embedded by the active model and searched in its vectors.

A private Neo4j on its own ports (17690/17477; see test_kill_during_update.py for the others)."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ingest.embeddings import ModelRoster
from service.db import Graph
from service.db.local_server import LocalNeo4jServer
from service.embedding_space import forget_active_space, space_for
from service.question.runner import answer_question
from service.settings import Settings
from tests.faults.support import (
    RUN_TIMEOUT_S,
    finish,
    kill_server,
    private_server,
    run_kgs,
    server_env,
    server_graph,
)

pytestmark = pytest.mark.local_server

BOLT, HTTP = 17690, 17477
SCOPE = "switchkb"
DOCUMENTS = 60
MODEL = "all-MiniLM-L6-v2"
ORIGINAL, TARGET = f"{MODEL}@384", f"{MODEL}@256"
TARGET_PROPERTY = space_for(MODEL, 256).vector_property
POLL_S = 0.02
QUESTION = "Which phrase belongs to item 7?"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalNeo4jServer]:
    instance = private_server(tmp_path_factory, "kgs-switch-faults", bolt_port=BOLT,
                              http_port=HTTP)  # fmt: skip
    instance.start()
    yield instance
    instance.stop()


def _env(server: LocalNeo4jServer) -> dict[str, str]:
    """With the model this time, in small batches so the kills land mid-fill."""
    return server_env(server) | {"KGS_EMBEDDINGS": "on", "KGS_EMBEDDING_SWITCH_BATCH": "8"}


def _kgs(server: LocalNeo4jServer, *arguments: str) -> subprocess.Popen[str]:
    return run_kgs(server, *arguments, env=_env(server))


def _write_kb(root: Path) -> None:
    folder = root / SCOPE
    folder.mkdir(parents=True)
    for n in range(DOCUMENTS):
        paragraphs = "\n\n".join(
            f"Item {n} paragraph {k} carries the phrase {n * 97 + k} and a note on item {n}."
            for k in range(5)
        )
        (folder / f"item-{n:03d}.md").write_text(f"# Item {n}\n\n{paragraphs}\n", encoding="utf-8")


def _target_vectors(graph: Graph) -> int:
    return int(graph.read("embeddings/coverage", property=TARGET_PROPERTY)[0]["embedded"])


def _kill_when(graph: Graph, process: subprocess.Popen[str], vectors: int) -> int:
    """Wait until the switch has written `vectors` of the new model's vectors; the count seen."""
    deadline = time.monotonic() + RUN_TIMEOUT_S
    while time.monotonic() < deadline and process.poll() is None:
        count = _target_vectors(graph)
        if count >= vectors:
            return count
        time.sleep(POLL_S)
    raise AssertionError(f"the switch ended (rc {process.returncode}) before the kill point")


def _check(graph: Graph, roster: ModelRoster, active: str, at_least: int) -> dict[str, Any]:
    """The invariants of the module docstring; returns figures."""
    models = graph.read("embeddings/models")
    assert [m["name"] for m in models if m["status"] == "active"] == [active], models
    active_property = next(m["property"] for m in models if m["name"] == active)
    [coverage] = graph.read("embeddings/coverage", property=active_property)
    assert coverage["embedded"] == coverage["paragraphs"] > 0, coverage
    kept = _target_vectors(graph)
    assert kept >= at_least  # every vector committed before the kill survived it
    events = []
    while page := graph.read("api/changes_page", scope=SCOPE, after=len(events), limit=100):
        events.extend(page)
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))  # no gap, no duplicate
    switched = [(e["model"], e["previousModel"]) for e in events if e["kind"] == "modelActivated"]
    assert switched == ([(TARGET, ORIGINAL)] if active == TARGET else [])
    assert len(events) - len(switched) == DOCUMENTS  # one `added` each, nothing else
    forget_active_space()  # this process reads the registry again at once
    response = answer_question(graph, roster, QUESTION, scope=SCOPE, llm=False)
    trace = response["trace"]
    assert trace["embedding"]["model"] == active and trace["embedding"]["status"] == "used"
    assert trace["retrieval"]["vectorMode"] == "exact" and response["citations"]
    return {"target_vectors": kept, "paragraphs": coverage["paragraphs"], "events": len(events)}


def test_kill_switch_then_neo4j_during_a_model_switch_keeps_one_active_model(
    server: LocalNeo4jServer, tmp_path: Path
) -> None:
    root = tmp_path / "kb"
    _write_kb(root)
    roster = ModelRoster(Settings.from_env(_env(server)).embedding.for_queries())
    figures: dict[str, Any] = {}
    started = time.monotonic()
    finish(_kgs(server, "ingest", str(root), "--no-progress"))
    with server_graph(server) as graph:
        paragraphs = _check(graph, roster, ORIGINAL, 0)["paragraphs"]

        # 1. the switch, and kill -9 of its process a third of the way.
        process = _kgs(server, "embeddings", "switch", TARGET)
        figures["process_kill_at"] = _kill_when(graph, process, paragraphs // 3)
        process.kill()
        process.communicate(timeout=60)
        figures["after_process_kill"] = _check(graph, roster, ORIGINAL, figures["process_kill_at"])
        assert figures["after_process_kill"]["target_vectors"] < paragraphs

        # 2. the same command again, and kill -9 of the Neo4j server under it.
        process = _kgs(server, "embeddings", "switch", TARGET)
        figures["server_kill_at"] = _kill_when(graph, process, 2 * paragraphs // 3)
        kill_server(server)
    process.kill()  # it could only retry against the dead server
    process.communicate(timeout=60)
    server.start()
    with server_graph(server) as graph:
        figures["after_server_kill"] = _check(graph, roster, ORIGINAL, figures["server_kill_at"])
        assert figures["after_server_kill"]["target_vectors"] < paragraphs

    # 3. once more, to the end: the new model active, announced once.
    finish(_kgs(server, "embeddings", "switch", TARGET))
    with server_graph(server) as graph:
        figures["final"] = _check(graph, roster, TARGET, paragraphs)
        again = _kgs(server, "embeddings", "switch", TARGET)  # already active: refused, no event
        out, err = again.communicate(timeout=RUN_TIMEOUT_S)
        assert again.returncode != 0 and "already the active model" in err, (out, err)
        assert _check(graph, roster, TARGET, paragraphs) == figures["final"]
    figures["elapsed_s"] = round(time.monotonic() - started, 1)
    print(f"\nkill during model switch: {figures}")
