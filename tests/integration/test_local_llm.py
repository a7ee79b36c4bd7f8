"""Generation against a real local model (tests/local_llm.py: llama.cpp's server, Gemma 3 270M):
the server streams, the service reviews what the model wrote and publishes nothing without
support, and a server killed mid-stream leaves the composed answer. The model is tiny and often
wrong: the assertions hold whatever it writes."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from litestar.testing import TestClient

from ingest.embeddings import SentenceTransformerEmbedder
from service.answer.llm import ChatClient
from service.api import create_app
from service.api.state import AppResources
from service.db import Graph
from service.settings import GenerationSettings, LlmSettings, Settings
from tests.integration.conftest import delete_scope
from tests.local_llm import local_llm
from tests.sse import sse_events

SCOPE = f"llm-{uuid.uuid4().hex[:8]}"
OBSIDIAN = """# Obsidian

Obsidian is volcanic glass that forms when felsic lava cools too quickly for crystals to grow.

## Working it

Obsidian flakes were knapped into blades with very sharp edges.
"""
QUESTION = {"query": "What is obsidian?", "scope": SCOPE}
# A 270M model on two cores reads the pack (about 3,000 tokens) in tens of seconds.
GENERATION = GenerationSettings(timeout_s=240.0, max_output_tokens=200, evidence_items=8)
KILL_AFTER_S = 4.0  # after the request: retrieval is done, the model is still reading


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, Any]]:
    with local_llm() as running:
        yield running


@pytest.fixture(scope="module")
def client(
    server: tuple[str, Any], settings: Settings, graph: Graph, embedder: SentenceTransformerEmbedder
) -> Iterator[TestClient[Any]]:
    yield from _client(server[0], settings, graph, embedder, ingest=True)
    delete_scope(graph, SCOPE)


def _client(
    base_url: str, settings: Settings, graph: Graph, embedder: Any, *, ingest: bool
) -> Iterator[TestClient[Any]]:
    test_settings = msgspec.structs.replace(
        settings, api=msgspec.structs.replace(settings.api, dev_mode=True), generation=GENERATION,
        llm=LlmSettings(base_url=base_url, model="gemma-3-270m", timeout_s=GENERATION.timeout_s),
    )  # fmt: skip
    resources = AppResources(test_settings, graph=graph, embedder=embedder)
    with TestClient(create_app(test_settings, resources)) as test_client:
        if ingest:
            upload = {"file": ("obsidian.md", OBSIDIAN.encode(), "text/markdown")}
            response = test_client.post("/v1/documents", data={"scope": SCOPE}, files=upload)
            assert response.status_code == 201, response.text
        yield test_client


def events(client: TestClient[Any]) -> list[tuple[str, Any]]:
    with client.stream("POST", "/v1/query/stream", json={**QUESTION, "generate": True}) as sse:
        assert sse.status_code == 200
        return sse_events("\n".join(sse.iter_lines()))


def test_the_server_streams_its_text_in_pieces(server: tuple[str, Any]) -> None:
    chat = ChatClient(LlmSettings(base_url=server[0], model="gemma-3-270m", timeout_s=120.0,
                                  max_output_tokens=40, response_format="none"))  # fmt: skip
    pieces: list[str] = []
    try:
        text = chat.stream("Answer briefly.", "Name a volcanic rock.", pieces.append)
    finally:
        chat.close()
    assert len(pieces) > 1 and "".join(pieces) == text and text.strip()


def test_nothing_the_model_wrote_is_published_without_support(client: TestClient[Any]) -> None:
    composed = client.post("/v1/query", json=QUESTION).json()
    found = events(client)
    answer = found[-1][1]
    assert found[-1][0] == "answer" and answer["status"] == composed["status"]
    generation = answer["trace"]["generation"]
    assert generation["requested"] is True
    claims = answer["trace"]["answerClaimCitations"]
    assert all(c["status"] != "unsupported" for c in claims)
    assert all(c["quote"] in OBSIDIAN for c in answer["citations"])
    if generation["used"]:  # every published sentence rests on a quote of the pack
        assert generation["removedByReview"] >= 0 and answer["citations"]
    else:  # the review or the parser refused it all: the composed answer, word for word
        assert generation["reason"] and answer["answer"] == composed["answer"]
    for delta in (d["text"] for kind, d in found if kind == "delta"):
        assert "http" not in delta.lower()


def test_a_server_killed_mid_stream_leaves_the_composed_answer(
    settings: Settings, graph: Graph, embedder: SentenceTransformerEmbedder,
    client: TestClient[Any],
) -> None:  # fmt: skip
    composed = client.post("/v1/query", json=QUESTION).json()
    with local_llm() as (base_url, doomed):
        for own in _client(base_url, settings, graph, embedder, ingest=False):
            killer = threading.Timer(KILL_AFTER_S, doomed.kill)
            started = time.monotonic()
            killer.start()
            try:
                found = events(own)
            finally:
                killer.cancel()
    answer = found[-1][1]
    assert time.monotonic() - started < GENERATION.timeout_s  # it failed fast, not by timeout
    assert answer["trace"]["generation"]["used"] is False
    assert answer["trace"]["generation"]["reason"] in ("connection", "bad_response")
    assert (answer["answer"], answer["status"]) == (composed["answer"], composed["status"])
