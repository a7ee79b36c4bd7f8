"""Questions without a scope (service/pipeline/scope_choice.py) against the real Neo4j: the key's
scopes are searched and the best one answers, every citation names its scope, a key never sees a
scope outside its own, too many scopes is a 400, development mode and `kgs ask` search them all."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from litestar.testing import TestClient

from ingest.embeddings import SentenceTransformerEmbedder
from service.api import create_app
from service.api.auth import hash_key
from service.api.state import AppResources
from service.db import Graph
from service.settings import ApiKey, ApiSettings, Settings
from tests.integration.conftest import delete_scope

A = f"qs-a-{uuid.uuid4().hex[:8]}"
B = f"qs-b-{uuid.uuid4().hex[:8]}"
C = f"qs-c-{uuid.uuid4().hex[:8]}"
SECRET = "quillmarigold"  # only scope B holds this word
MAX_QUESTION_SCOPES = 2
KEYS = {  # name -> (key, scopes)
    "reader-a": ("qs-key-a", (A,)),
    "reader-b": ("qs-key-b", (B,)),
    "reader-ac": ("qs-key-ac", (A, C)),
    "reader-abc": ("qs-key-abc", (A, B, C)),  # more scopes than MAX_QUESTION_SCOPES
    "writer": ("qs-key-writer", (A, B, C)),
}
DOCUMENTS = {
    A: {
        "basalt.md": "# Basalt\n\nBasalt is a fine-grained volcanic rock formed from rapidly "
        "cooled lava.\n\n## Uses\n\nBasalt is crushed for road construction and railway "
        "ballast.\n",
        "lighthouse.md": "# Lighthouse\n\nThe harbour lighthouse was painted red and white in "
        "1910.\n",
    },
    B: {
        "keeper.md": "# Lighthouse keeper\n\nThe lighthouse keeper's passphrase is "
        f"{SECRET}, and the keeper changes it every winter.\n",
    },
    C: {
        "obsidian.md": "# Obsidian\n\nObsidian is volcanic glass with a glassy texture that "
        "forms when felsic lava cools quickly.\n\n## Working it\n\nObsidian flakes were "
        "knapped into blades with very sharp edges.\n",
    },
}
KEEPER_QUESTION = "What is the lighthouse keeper's passphrase?"


def headers(name: str) -> dict[str, str]:
    return {"X-API-Key": KEYS[name][0]}


def ask(client: TestClient[Any], key: str | None, query: str, **body: Any) -> Any:
    return client.post("/v1/query", json={"query": query, **body},
                       headers=headers(key) if key else {})  # fmt: skip


def _app(settings: Settings, graph: Graph, embedder: SentenceTransformerEmbedder,
         api: ApiSettings) -> TestClient[Any]:  # fmt: skip
    test_settings = msgspec.structs.replace(settings, api=api)
    resources = AppResources(test_settings, graph=graph, embedder=embedder)
    return TestClient(create_app(test_settings, resources))


@pytest.fixture(scope="module")
def client(
    settings: Settings, graph: Graph, embedder: SentenceTransformerEmbedder
) -> Iterator[TestClient[Any]]:
    api = ApiSettings(
        keys=tuple(ApiKey(name=n, sha256=hash_key(k), scopes=s, write=n == "writer")
                   for n, (k, s) in KEYS.items()),
        max_question_scopes=MAX_QUESTION_SCOPES,
    )  # fmt: skip
    try:
        with _app(settings, graph, embedder, api) as test_client:
            for scope, files in DOCUMENTS.items():
                for name, text in files.items():
                    response = test_client.post(
                        "/v1/documents", files={"file": (name, text.encode(), "text/markdown")},
                        data={"scope": scope}, headers=headers("writer"),
                    )  # fmt: skip
                    assert response.status_code == 201, response.text
            yield test_client
    finally:
        for scope in DOCUMENTS:
            delete_scope(graph, scope)


def test_the_best_readable_scope_answers_and_citations_name_it(client: TestClient[Any]) -> None:
    for question, expected in (("what is obsidian?", C), ("what is basalt?", A)):
        response = ask(client, "reader-ac", question)
        assert response.status_code == 200, response.text
        body = response.json()
        assert body["status"] != "abstained" and body["citations"], body["answer"]
        assert {c["scope"] for c in body["citations"]} == {expected}
        choice = body["trace"]["scopeChoice"]
        assert choice["chosen"] == expected == body["trace"]["plan"]["scope"]
        assert {s["scope"] for s in choice["scopes"]} == {A, C}
        best, other = choice["scopes"]
        assert best["scope"] == expected and best["bestCosine"] > other["bestCosine"]
        assert "cosine" in choice["reason"]
        # The choice's retrieval in both scopes is in the trace's Cypher, with the answer's.
        read = {c["parameters"]["scope"] for c in body["trace"]["cypher"]
                if "scope" in c["parameters"]}  # fmt: skip
        assert read == {A, C}
        assert body["trace"]["timingsMs"]["scopeChoice"] >= 0
    # A named scope answers as before, its citations naming it too.
    named = ask(client, "reader-ac", "what is obsidian?", scope=C).json()
    assert named["citations"] and {c["scope"] for c in named["citations"]} == {C}
    assert "scopeChoice" not in named["trace"]


def test_a_key_never_sees_a_scope_outside_its_own(client: TestClient[Any]) -> None:
    """B alone answers the keeper question (see the development mode test); keys without B get
    nothing of B: not its text, citations, hits, statements, nor its name."""
    seen: list[str] = []
    for key in ("reader-a", "reader-ac"):
        response = ask(client, key, KEEPER_QUESTION)
        assert response.status_code == 200, response.text
        body = response.json()
        assert {c["scope"] for c in body["citations"]} <= set(KEYS[key][1])
        assert {s["scope"] for s in body["trace"]["scopeChoice"]["scopes"]} == set(KEYS[key][1])
        seen.append(response.text)
        stored = client.get(f"/v1/traces/{body['traceId']}", headers=headers(key))
        assert stored.status_code == 200
        seen.append(stored.text)
    with client.stream("POST", "/v1/query/stream", json={"query": KEEPER_QUESTION},
                       headers=headers("reader-ac")) as stream:  # fmt: skip
        assert stream.status_code == 200
        events = "\n".join(stream.iter_lines())
    assert '"scopes":["' + A + '","' + C + '"]' in events and "event: answer" in events
    seen.append(events)
    for text in seen:
        assert SECRET not in text and B not in text
    # A trace that searched C is not readable with a key for A alone.
    trace_id = ask(client, "reader-ac", KEEPER_QUESTION).json()["traceId"]
    assert client.get(f"/v1/traces/{trace_id}", headers=headers("reader-a")).status_code == 404
    # B's own key, without a scope, gets B's answer.
    own = ask(client, "reader-b", KEEPER_QUESTION).json()
    assert SECRET in own["answer"] and {c["scope"] for c in own["citations"]} == {B}


def test_more_scopes_than_the_limit_is_a_400(client: TestClient[Any]) -> None:
    for path in ("/v1/query", "/v1/query/stream"):
        response = client.post(path, json={"query": KEEPER_QUESTION},
                               headers=headers("reader-abc"))  # fmt: skip
        assert response.status_code == 400, response.text
        assert response.headers["content-type"].startswith("application/problem+json")
        assert "name the scope" in response.json()["detail"]
    named = ask(client, "reader-abc", KEEPER_QUESTION, scope=B)
    assert named.status_code == 200 and SECRET in named.json()["answer"]


def test_development_mode_searches_every_scope(
    client: TestClient[Any], settings: Settings, graph: Graph,
    embedder: SentenceTransformerEmbedder,
) -> None:  # fmt: skip
    # Every scope of the shared test database is searched, so no limit here.
    api = ApiSettings(dev_mode=True, max_question_scopes=100_000)
    with _app(settings, graph, embedder, api) as dev:
        body = ask(dev, None, KEEPER_QUESTION).json()
    assert SECRET in body["answer"], body["answer"]
    assert {c["scope"] for c in body["citations"]} == {B}
    choice = body["trace"]["scopeChoice"]
    assert choice["chosen"] == B and {A, B, C} <= {s["scope"] for s in choice["scopes"]}


def test_kgs_ask_without_a_scope(client: TestClient[Any], cli_env: dict[str, str]) -> None:
    """Without the model: the share of the question's key terms in each scope's hits decides."""
    env = {**cli_env, "KGS_EMBEDDINGS": "off", "KGS_API_MAX_QUESTION_SCOPES": "100000"}
    run = [sys.executable, "-m", "service.cli", "ask", KEEPER_QUESTION]
    result = subprocess.run([*run, "--json"], env=env, capture_output=True, text=True,
                            timeout=300)  # fmt: skip
    assert result.returncode == 0, result.stderr
    response = json.loads(result.stdout)
    assert {c["scope"] for c in response["citations"]} == {B}
    assert "key terms" in response["trace"]["scopeChoice"]["reason"]
    limited = subprocess.run(run, env={**env, "KGS_API_MAX_QUESTION_SCOPES": "1"},
                             capture_output=True, text=True, timeout=300)  # fmt: skip
    assert limited.returncode == 1 and "name the scope" in limited.stderr
