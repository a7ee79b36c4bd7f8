"""An embedding model switch against the real Neo4j, through the API: the default model truncated
to 256 dimensions is built beside the 384-dimension one while questions keep coming (none
fails), audited, activated in one step (the feed says so), then rolled back in one step and
retired. A process whose model is not the active one does not embed the question (the trace
says why)."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from litestar.testing import TestClient

from ingest.embedding_models import list_models, retire, switch
from ingest.embeddings import ModelRoster, SentenceTransformerEmbedder
from ingest.pipeline import ingest_file_text
from service.api import create_app
from service.api.auth import hash_key
from service.api.auth.keys import ALL_SCOPES
from service.api.state import AppResources
from service.db import Graph
from service.embedding_space import (
    ACTIVE_CACHE_S,
    active_space,
    forget_active_space,
    space_for,
)
from service.pipeline.explain import render_explain
from service.question.runner import answer_question
from service.settings import ApiKey, ApiSettings, Settings
from tests.integration.conftest import delete_scope

SCOPE = f"switch-{uuid.uuid4().hex[:8]}"
ORIGINAL = "all-MiniLM-L6-v2@384"
SMALLER = "all-MiniLM-L6-v2@256"
ADMIN, SCOPED = "key-switch-admin", "key-switch-scoped"
QUESTIONS = (
    "What is pumice used for?",
    "How are basalt columns formed?",
    "Why does obsidian break with sharp edges?",
)
DOCUMENTS = {
    "pumice.md": "# Pumice\n\nPumice is a light volcanic rock full of gas bubbles; it floats.\n\n"
    "## Uses\n\nPumice is ground into an abrasive for polishing stone and skin.\n",
    "basalt.md": "# Basalt\n\nBasalt is a dark volcanic rock from fast-cooling lava.\n\n"
    "## Columns\n\nBasalt columns form when a thick lava flow cools and contracts into "
    "hexagonal joints.\n",
    "obsidian.md": "# Obsidian\n\nObsidian is volcanic glass that cooled too fast to crystallise."
    "\n\n## Fracture\n\nObsidian breaks with a conchoidal fracture, leaving edges sharper than "
    "steel blades.\n",
}


@pytest.fixture(scope="module")
def app(settings: Settings, graph: Graph) -> Iterator[tuple[TestClient[Any], AppResources]]:
    roster = ModelRoster(settings.embedding.for_queries())
    keys = (
        ApiKey(name="admin", sha256=hash_key(ADMIN), scopes=(ALL_SCOPES,), write=True),
        ApiKey(name="scoped", sha256=hash_key(SCOPED), scopes=(SCOPE,), write=True),
    )
    # No rate limit: two clients ask back to back for as long as the switch runs, and a fast
    # machine would pass the default 600 a minute (a 429 is not what this test is about).
    test_settings = msgspec.structs.replace(
        settings, api=ApiSettings(keys=keys, rate_limit_requests=0)
    )
    resources = AppResources(test_settings, graph=graph, embedder=roster)
    for path, text in DOCUMENTS.items():
        ingest_file_text(graph, roster, SCOPE, path, text.encode(), settings.ingest)
    try:
        with TestClient(create_app(test_settings, resources)) as client:
            yield client, resources
    finally:
        for model in list_models(graph):  # whatever the test left: back to the original only
            if model["name"] != ORIGINAL:
                if model["status"] == "active":
                    client.post("/v1/embeddings/rollback", headers={"X-API-Key": ADMIN})
                retire(graph, str(model["name"]), settings.embedding)
        forget_active_space()
        delete_scope(graph, SCOPE)


def _ask(client: TestClient[Any], query: str) -> tuple[int, dict[str, Any]]:
    response = client.post("/v1/query", json={"query": query, "scope": SCOPE},
                           headers={"X-API-Key": ADMIN})  # fmt: skip
    return response.status_code, response.json()


def test_switch_to_another_dimension_while_answering_then_roll_back(
    app: tuple[TestClient[Any], AppResources], graph: Graph, settings: Settings
) -> None:
    client, resources = app
    assert isinstance(resources.embedder, ModelRoster)
    statuses: list[int] = []
    models: list[str | None] = []
    stop = threading.Event()

    def keep_asking() -> None:
        turn = 0
        while not stop.is_set():
            status, body = _ask(client, QUESTIONS[turn % len(QUESTIONS)])
            statuses.append(status)
            models.append(body.get("trace", {}).get("embedding", {}).get("model"))
            turn += 1

    askers = [threading.Thread(target=keep_asking) for _ in range(2)]
    for asker in askers:
        asker.start()
    try:
        embedding = msgspec.structs.replace(settings.embedding, switch_batch=4, audit_questions=6)
        report = switch(graph, resources.embedder, SMALLER, embedding)
        time.sleep(ACTIVE_CACHE_S + 0.2)  # every process reads the registry again by now
        after_switch = len(statuses)
        while len(statuses) < after_switch + 4:
            time.sleep(0.05)
        refused = client.post("/v1/embeddings/rollback", headers={"X-API-Key": SCOPED})
        rolled = client.post("/v1/embeddings/rollback", headers={"X-API-Key": ADMIN})
        forget_active_space()
        time.sleep(ACTIVE_CACHE_S + 0.2)
        after_rollback = len(statuses)
        while len(statuses) < after_rollback + 4:
            time.sleep(0.05)
    finally:
        stop.set()
        for asker in askers:
            asker.join()

    assert statuses and set(statuses) == {200}, statuses  # no question failed throughout
    assert report.activated and report.previous == ORIGINAL and report.model == SMALLER
    assert report.audit.coverage == 1.0 and report.audit.paragraphs >= 6
    assert report.audit.questions > 0 and report.audit.agreement is not None
    assert report.audit.agreement > 0.5  # the same model, truncated: mostly the same neighbours
    assert any(name.startswith("paragraph_embedding_m") for name in report.indexes)
    # Questions were embedded by the original, then the smaller model, then the original again.
    assert ORIGINAL in models[:after_switch] and SMALLER in models[after_switch:after_rollback]
    assert set(models[after_rollback + 2 :]) == {ORIGINAL}, models[after_rollback:]
    assert refused.status_code == 403
    assert rolled.status_code == 200, rolled.text
    assert rolled.json() == {"active": ORIGINAL, "previous": SMALLER}
    listed = client.get("/v1/embeddings", headers={"X-API-Key": ADMIN}).json()
    states = {m["name"]: m for m in listed}
    assert states[ORIGINAL]["status"] == "active" and states[SMALLER]["status"] == "standby"
    assert states[SMALLER]["embedded"] == states[SMALLER]["paragraphs"]
    feed = client.get("/v1/changes", params={"scope": SCOPE},
                      headers={"X-API-Key": ADMIN}).json()["items"]  # fmt: skip
    switches = [(e["model"], e["previousModel"]) for e in feed if e["kind"] == "modelActivated"]
    assert switches == [(SMALLER, ORIGINAL), (ORIGINAL, SMALLER)]


def test_a_question_is_not_embedded_by_another_model_than_the_active_one(
    app: tuple[TestClient[Any], AppResources], graph: Graph, settings: Settings
) -> None:
    client, resources = app
    assert isinstance(resources.embedder, ModelRoster)
    embedding = msgspec.structs.replace(settings.embedding, switch_batch=64, audit_questions=0)
    if (space := active_space(graph)) is None or space.name != SMALLER:
        listed = {m["name"]: m["status"] for m in list_models(graph)}
        if listed.get(SMALLER) == "standby":
            activated = client.post("/v1/embeddings/activate", json={"model": SMALLER},
                                    headers={"X-API-Key": ADMIN})  # fmt: skip
            assert activated.status_code == 200, activated.text
        else:
            switch(graph, resources.embedder, SMALLER, embedding)
    forget_active_space()
    try:
        plain = SentenceTransformerEmbedder(settings.embedding.for_queries())  # 384 only
        response = answer_question(graph, plain, QUESTIONS[0], scope=SCOPE, llm=False)
        trace = response["trace"]
        assert trace["embedding"]["status"] == "mismatch"
        assert trace["embedding"]["model"] == SMALLER
        assert trace["retrieval"]["vectorMode"] == "none"  # lexical only, never mixed spaces
        assert response["citations"]  # and still answered from the full-text channel
        served = answer_question(graph, resources.embedder, QUESTIONS[0], scope=SCOPE, llm=False)
        assert served["trace"]["embedding"] == {"model": SMALLER, "property":
                                                active_space(graph).vector_property,  # type: ignore[union-attr]
                                                "status": "used"}  # fmt: skip
        assert served["trace"]["retrieval"]["vectorMode"] == "exact"
        # What an engineer pastes into Browser names the property the answer read.
        pasted = render_explain(served["trace"]["cypher"], graph.registry)
        assert space_for("all-MiniLM-L6-v2", 256).vector_property in pasted
        assert "VectorProperty" not in pasted
    finally:
        rolled = client.post("/v1/embeddings/rollback", headers={"X-API-Key": ADMIN})
        assert rolled.status_code == 200, rolled.text
        forget_active_space()
    cleared = retire(graph, SMALLER, settings.embedding)
    assert cleared >= 6
    assert [m["name"] for m in list_models(graph)] == [ORIGINAL]
    assert not graph.read(
        "embeddings/model_indexes", index=space_for("all-MiniLM-L6-v2", 256).index
    )
