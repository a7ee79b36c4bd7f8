"""Citations carry UTF-16 offsets beside their code-point offsets: through the API, a document
with emoji and astral letters before and inside the answered sentence is cited so that both
Python's `source[startOffset:endOffset]` and JavaScript's `source.slice(utf16Start, utf16End)`
give the quote."""

from __future__ import annotations

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

SCOPE = f"utf16-{uuid.uuid4().hex[:8]}"
KEY = "key-utf16-admin"
HEADERS = {"X-API-Key": KEY}
GLIMMERSTONE = """---
title: Glimmerstone 😀
---
# Glimmerstone 𝔘

Collectors 😀 love 𝔘 shiny things 👩‍👩‍👧. A glimmerstone is a translucent quartz 💎 pebble that \
glows 𝔘 green under ultraviolet light.

## Care 🧊

Keep a glimmerstone 🧊 away from acids, which etch 𝔘 its surface.
"""


def _utf16_slice(source: str, start: int, end: int) -> str:
    return source.encode("utf-16-le")[2 * start : 2 * end].decode("utf-16-le")


@pytest.fixture(scope="module")
def client(
    settings: Settings, graph: Graph, embedder: SentenceTransformerEmbedder
) -> Iterator[TestClient[Any]]:
    api = ApiSettings(keys=(ApiKey(name="admin", sha256=hash_key(KEY), scopes=("*",),
                                   write=True),))  # fmt: skip
    test_settings = msgspec.structs.replace(settings, api=api)
    resources = AppResources(test_settings, graph=graph, embedder=embedder)
    try:
        with TestClient(create_app(test_settings, resources)) as test_client:
            yield test_client
    finally:
        delete_scope(graph, SCOPE)


def test_citations_slice_the_quote_in_code_points_and_utf16(client: TestClient[Any]) -> None:
    files = {"file": ("glimmerstone.md", GLIMMERSTONE.encode(), "text/markdown")}
    added = client.post("/v1/documents", files=files, data={"scope": SCOPE}, headers=HEADERS)
    assert added.status_code == 201, added.text
    document_id = added.json()["documentId"]

    response = client.post(
        "/v1/query?trace=false",
        json={"query": "what is a glimmerstone?", "scope": SCOPE},
        headers=HEADERS,
    )
    assert response.status_code == 200, response.text
    answer = response.json()
    citations = answer["citations"]
    assert answer["status"] == "answered" and citations, answer
    sources: dict[int, str] = {}
    for c in citations:
        assert c["documentId"] == document_id
        version = c["documentVersion"]
        if version not in sources:
            fetched = client.get(f"/v1/documents/{document_id}/source?version={version}",
                                 headers=HEADERS)  # fmt: skip
            assert fetched.status_code == 200, fetched.text
            sources[version] = fetched.text
        source = sources[version]
        assert source == GLIMMERSTONE
        quote = c["quote"]
        assert source[c["startOffset"] : c["endOffset"]] == quote
        assert _utf16_slice(source, c["utf16Start"], c["utf16End"]) == quote
        # Astral characters come before every quote here: the two kinds of offset must differ.
        assert c["utf16Start"] > c["startOffset"] and c["utf16End"] > c["endOffset"]
    # The answered sentence itself holds astral characters (its UTF-16 span is longer).
    definition = next(c for c in citations if "translucent quartz" in c["quote"])
    assert "💎" in definition["quote"]
    span16 = definition["utf16End"] - definition["utf16Start"]
    assert span16 == len(definition["quote"].encode("utf-16-le")) // 2 > len(definition["quote"])
