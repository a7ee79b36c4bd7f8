"""Questions without a scope (service/question/scope_choice.py) against the real Neo4j: the key's
scopes are searched and the best one answers, every citation names its scope, a key never sees a
scope outside its own, too many scopes is a 400, development mode and `kgs ask` search them all.
With more readable scopes than the retrieval candidates, one statement pre-ranks them (vector,
exact or through the index; full text without the model) and only the best retrieve."""

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
from service.question.scope_choice import answer_best_scope
from service.settings import ApiKey, ApiSettings, PipelineSettings, Settings
from tests.integration.conftest import delete_scope

A = f"qs-a-{uuid.uuid4().hex[:8]}"
B = f"qs-b-{uuid.uuid4().hex[:8]}"
C = f"qs-c-{uuid.uuid4().hex[:8]}"
D = f"qs-d-{uuid.uuid4().hex[:8]}"
E = f"qs-e-{uuid.uuid4().hex[:8]}"
SECRET = "quillmarigold"  # only scope B holds this word
CANDIDATES = 3  # scopes retrieved after the pre-ranking (KGS_API_QUESTION_SCOPE_CANDIDATES)
MAX_QUESTION_SCOPES = 4
KEYS = {  # name -> (key, scopes)
    "reader-a": ("qs-key-a", (A,)),
    "reader-b": ("qs-key-b", (B,)),
    "reader-ac": ("qs-key-ac", (A, C)),
    "reader-acde": ("qs-key-acde", (A, C, D, E)),  # more scopes than CANDIDATES, all but B
    "reader-abcde": ("qs-key-abcde", (A, B, C, D, E)),  # more scopes than MAX_QUESTION_SCOPES
    "writer": ("qs-key-writer", (A, B, C, D, E)),
}
PRE_RANKING = ("scope/rank_scopes_vector", "scope/rank_scopes_fulltext")
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
    D: {
        "tides.md": "# Tide tables\n\nHigh water at the north pier comes about fifty minutes "
        "later each day, following the moon.\n",
    },
    E: {
        "sourdough.md": "# Sourdough\n\nA sourdough starter is fed flour and water daily and "
        "kept at room temperature.\n",
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
        max_question_scopes=MAX_QUESTION_SCOPES, question_scope_candidates=CANDIDATES,
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


@pytest.fixture
def candidates() -> int:
    """The retrieval candidates the service is configured with (its ApiSettings)."""
    return CANDIDATES


def pre_ranking_calls(trace: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in trace["cypher"] if c["statement"] in PRE_RANKING]


def retrieved_scopes(trace: dict[str, Any]) -> set[str]:
    """The scopes of every statement of the trace that names one scope."""
    return {c["parameters"]["scope"] for c in trace["cypher"] if "scope" in c["parameters"]}


def test_the_best_readable_scope_answers_and_citations_name_it(
    client: TestClient[Any], candidates: int
) -> None:
    """Two scopes, no more than the candidates: both retrieve, no pre-ranking statement runs."""
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
        pre = choice["preRanking"]
        assert pre["method"] == "none" and pre["candidates"] == candidates
        assert {s["scope"] for s in pre["scopes"] if s["retrieved"]} == {A, C}
        assert not pre_ranking_calls(body["trace"])
        # The choice's retrieval in both scopes is in the trace's Cypher, with the answer's.
        assert retrieved_scopes(body["trace"]) == {A, C}
        assert body["trace"]["timingsMs"]["scopeChoice"] >= 0
    # A named scope answers as before, its citations naming it too.
    named = ask(client, "reader-ac", "what is obsidian?", scope=C).json()
    assert named["citations"] and {c["scope"] for c in named["citations"]} == {C}
    assert "scopeChoice" not in named["trace"]


def test_more_scopes_than_candidates_retrieve_only_the_best_pre_ranked(
    client: TestClient[Any], candidates: int
) -> None:
    """Four readable scopes, three candidates: one statement pre-ranks the four, the best three
    retrieve, and the right one answers."""
    for question, expected in (("what is obsidian?", C), ("when is high water at the pier?", D),
                               ("how is a sourdough starter fed?", E)):  # fmt: skip
        response = ask(client, "reader-acde", question)
        assert response.status_code == 200, response.text
        body = response.json()
        trace = body["trace"]
        choice = trace["scopeChoice"]
        assert choice["chosen"] == expected == trace["plan"]["scope"], choice
        assert body["citations"] and {c["scope"] for c in body["citations"]} == {expected}
        pre = choice["preRanking"]
        assert pre["method"] == "vector:exact" and pre["candidates"] == candidates
        assert pre["scopes"][0]["scope"] == expected
        assert {s["scope"] for s in pre["scopes"]} == {A, C, D, E}
        assert all(s["bestCosine"] is not None for s in pre["scopes"])
        cosines = [s["bestCosine"] for s in pre["scopes"]]
        assert cosines == sorted(cosines, reverse=True)
        retrieved = [s["scope"] for s in pre["scopes"] if s["retrieved"]]
        assert retrieved == [s["scope"] for s in pre["scopes"]][:candidates]
        assert {s["scope"] for s in choice["scopes"]} == set(retrieved)
        assert retrieved_scopes(trace) == set(retrieved)
        (call,) = pre_ranking_calls(trace)
        assert call["statement"] == "scope/rank_scopes_vector"
        assert sorted(call["parameters"]["scopes"]) == sorted((A, C, D, E))
        assert "among the 3 best pre-ranked of 4 scopes" in choice["reason"]
        assert trace["timingsMs"]["scopePreRanking"] > 0


def test_a_key_never_sees_a_scope_outside_its_own(client: TestClient[Any], candidates: int) -> None:
    """B alone answers the keeper question (see the development mode test); keys without B get
    nothing of B: not its text, citations, hits, statements, nor its name; nor does the
    pre-ranking of a key with more scopes than the candidates ever read another scope."""
    seen: list[str] = []
    for key in ("reader-a", "reader-ac", "reader-acde"):
        response = ask(client, key, KEEPER_QUESTION)
        assert response.status_code == 200, response.text
        body = response.json()
        assert {c["scope"] for c in body["citations"]} <= set(KEYS[key][1])
        pre = body["trace"]["scopeChoice"]["preRanking"]
        assert {s["scope"] for s in pre["scopes"]} == set(KEYS[key][1])
        assert retrieved_scopes(body["trace"]) <= set(KEYS[key][1])
        for call in pre_ranking_calls(body["trace"]):
            assert set(call["parameters"]["scopes"]) <= set(KEYS[key][1])
        assert bool(pre_ranking_calls(body["trace"])) == (len(KEYS[key][1]) > candidates)
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


@pytest.mark.parametrize("mode", ["index", "fulltext"])
def test_every_pre_ranking_method_keeps_to_the_given_scopes(
    client: TestClient[Any], graph: Graph, embedder: SentenceTransformerEmbedder, mode: str
) -> None:
    """Through the shared vector index (the rule's branch for many paragraphs, forced here) or
    the shared full-text index (no model): the index holds every scope, the pre-ranking lists
    only the scopes given, the right one answers, and nothing of B comes back."""
    settings = PipelineSettings(exact_vector_max_paragraphs=1) if mode == "index" else None
    model = embedder if mode == "index" else None
    scopes = KEYS["reader-acde"][1]
    for question, expected in (("what is obsidian?", C), ("what is a sourdough starter?", E)):
        response = answer_best_scope(graph, model, question, scopes=scopes, settings=settings,
                                     llm=False, candidates=1)  # fmt: skip
        choice = response["trace"]["scopeChoice"]
        pre = choice["preRanking"]
        assert choice["chosen"] == expected, choice
        assert {c["scope"] for c in response["citations"]} == {expected}
        assert [s["scope"] for s in pre["scopes"] if s["retrieved"]] == [expected]
        assert {s["scope"] for s in pre["scopes"]} == set(scopes)
        assert retrieved_scopes(response["trace"]) == {expected}
        if mode == "index":
            assert pre["method"].startswith("vector:index:")
            assert pre["scopes"][0]["bestCosine"] is not None
        else:
            assert pre["method"] == "fulltext"
            assert pre["scopes"][0]["bestFulltext"] > 0
        calls = pre_ranking_calls(response["trace"])
        assert calls and all(set(c["parameters"]["scopes"]) <= set(scopes) for c in calls)
        text = json.dumps(response, default=str)
        assert B not in text and SECRET not in text


def test_more_scopes_than_the_limit_is_a_400(client: TestClient[Any]) -> None:
    for path in ("/v1/query", "/v1/query/stream"):
        response = client.post(path, json={"query": KEEPER_QUESTION},
                               headers=headers("reader-abcde"))  # fmt: skip
        assert response.status_code == 400, response.text
        assert response.headers["content-type"].startswith("application/problem+json")
        assert "name the scope" in response.json()["detail"]
    named = ask(client, "reader-abcde", KEEPER_QUESTION, scope=B)
    assert named.status_code == 200 and SECRET in named.json()["answer"]


def _keeper_scope(scope: str) -> bool:
    """B, or the B of a concurrent run of this module (the same text in a scope of its own)."""
    return scope == B or scope.startswith("qs-b-")


def test_development_mode_searches_every_scope(
    client: TestClient[Any], settings: Settings, graph: Graph,
    embedder: SentenceTransformerEmbedder, candidates: int,
) -> None:  # fmt: skip
    """Every scope of the shared test database (dozens) is pre-ranked, a few retrieve, B
    answers."""
    api = ApiSettings(dev_mode=True)  # the default limit: 1000 scopes
    with _app(settings, graph, embedder, api) as dev:
        body = ask(dev, None, KEEPER_QUESTION).json()
    assert SECRET in body["answer"], body["answer"]
    choice = body["trace"]["scopeChoice"]
    assert _keeper_scope(choice["chosen"]), choice
    assert {c["scope"] for c in body["citations"]} == {choice["chosen"]}
    pre = choice["preRanking"]
    considered = {s["scope"] for s in pre["scopes"]}
    assert {A, B, C, D, E} <= considered and len(considered) > candidates
    assert pre["method"].startswith("vector:")
    retrieved = {s["scope"] for s in pre["scopes"] if s["retrieved"]}
    assert len(retrieved) == candidates and choice["chosen"] in retrieved
    assert retrieved_scopes(body["trace"]) == retrieved == {s["scope"] for s in choice["scopes"]}
    (call,) = pre_ranking_calls(body["trace"])
    assert set(call["parameters"]["scopes"]) == considered


def test_kgs_ask_without_a_scope(client: TestClient[Any], cli_env: dict[str, str]) -> None:
    """Without the model: the full-text index pre-ranks every scope, then the share of the
    question's key terms in each retrieved scope's hits decides."""
    env = {**cli_env, "KGS_EMBEDDINGS": "off", "KGS_API_QUESTION_SCOPE_CANDIDATES": "2"}
    env.pop("KGS_API_MAX_QUESTION_SCOPES", None)  # the default, 1000
    run = [sys.executable, "-m", "service.cli", "ask", KEEPER_QUESTION]
    result = subprocess.run([*run, "--json"], env=env, capture_output=True, text=True,
                            timeout=300)  # fmt: skip
    assert result.returncode == 0, result.stderr
    response = json.loads(result.stdout)
    choice = response["trace"]["scopeChoice"]
    assert _keeper_scope(choice["chosen"]) and SECRET in response["answer"]
    assert {c["scope"] for c in response["citations"]} == {choice["chosen"]}
    assert "key terms" in choice["reason"] and "(fulltext)" in choice["reason"]
    pre = choice["preRanking"]
    assert pre["method"] == "fulltext" and pre["candidates"] == 2
    assert sum(s["retrieved"] for s in pre["scopes"]) == 2 and len(pre["scopes"]) > 2
    limited = subprocess.run(run, env={**env, "KGS_API_MAX_QUESTION_SCOPES": "1"},
                             capture_output=True, text=True, timeout=300)  # fmt: skip
    assert limited.returncode == 1 and "name the scope" in limited.stderr
