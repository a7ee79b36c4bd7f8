"""The /v1 routes through Litestar's test client against the real Neo4j: keys and scopes,
scope isolation, the document lifecycle, knowledge points, traces, streaming and bad input."""

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
from tests.sse import sse_events

A = f"api-a-{uuid.uuid4().hex[:8]}"
B = f"api-b-{uuid.uuid4().hex[:8]}"
SECRET = "zephyrcobalt"  # only scope B holds this word
KEYS = {  # name -> (key, scopes, write)
    "reader-a": ("key-reader-a", (A,), False),
    "writer-a": ("key-writer-a", (A,), True),
    "reader-b": ("key-reader-b", (B,), False),
    "admin": ("key-admin", ("*",), True),
}
MAX_QUERY_CHARS = 300
MAX_UPLOAD_BYTES = 64_000

BASALT = """---
id: basalt
title: Basalt
aliases: [basalt rock]
relations:
  - {type: CONTRASTS_WITH, target: granite, confidence: 0.9}
---
# Basalt

Basalt is a fine-grained volcanic rock formed from rapidly cooled lava.

## Uses

Basalt is crushed for road construction and railway ballast.
"""
GRANITE = """# Granite

Granite is a coarse-grained intrusive igneous rock rich in quartz and feldspar.
"""
VAULT = f"""---
id: vault-secret
title: Vault secret
aliases: [basalt vault]
relations:
  - {{type: PART_OF, target: granite, confidence: 0.5}}
---
# Vault secret

The vault secret passphrase is {SECRET} seven seven three one.
"""
OBSIDIAN = """# Obsidian

Obsidian is volcanic glass with a glassy texture that forms when felsic lava cools quickly.

## Working it

Obsidian flakes were knapped into blades with very sharp edges.
"""


def headers(name: str | None) -> dict[str, str]:
    return {"X-API-Key": KEYS[name][0]} if name else {}


def upload(client: TestClient[Any], key: str, scope: str, name: str, content: bytes,
           content_type: str = "text/markdown", path: str | None = None) -> Any:  # fmt: skip
    form = {"scope": scope, **({"path": path} if path is not None else {})}
    return client.post("/v1/documents", files={"file": (name, content, content_type)},
                       data=form, headers=headers(key))  # fmt: skip


def ask(client: TestClient[Any], key: str, query: str, **body: Any) -> Any:
    return client.post("/v1/query", json={"query": query, **body}, headers=headers(key))


def assert_problem(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body: dict[str, Any] = response.json()
    assert body["status"] == status and body["title"] and body["traceId"].startswith("t_")
    return body


@pytest.fixture(scope="module")
def client(
    settings: Settings, graph: Graph, embedder: SentenceTransformerEmbedder
) -> Iterator[TestClient[Any]]:
    api = ApiSettings(
        keys=tuple(ApiKey(name=n, sha256=hash_key(k), scopes=s, write=w)
                   for n, (k, s, w) in KEYS.items()),
        max_query_chars=MAX_QUERY_CHARS,
        max_upload_bytes=MAX_UPLOAD_BYTES,
    )  # fmt: skip
    test_settings = msgspec.structs.replace(settings, api=api)
    resources = AppResources(test_settings, graph=graph, embedder=embedder)
    try:
        with TestClient(create_app(test_settings, resources)) as test_client:
            # granite before basalt: a relation to a knowledge point that no document describes
            # yet is pruned at the end of the upload (ingestion's rule).
            for scope, name, text in (
                (A, "granite.md", GRANITE),
                (A, "basalt.md", BASALT),
                (B, "granite.md", GRANITE),
                (B, "vault-secret.md", VAULT),
            ):
                response = upload(test_client, "admin", scope, name, text.encode())
                assert response.status_code == 201, response.text
            yield test_client
    finally:
        delete_scope(graph, A)
        delete_scope(graph, B)


def test_keys_401_403_404(client: TestClient[Any]) -> None:
    for method, path in (("GET", "/v1/documents"), ("POST", "/v1/query"),
                         ("GET", "/v1/knowledge-points/basalt"),
                         ("GET", "/v1/traces/t_0000000000000000")):  # fmt: skip
        body = {"query": "basalt"} if method == "POST" else None
        for key in ({}, {"X-API-Key": "wrong"}, {"Authorization": "Bearer wrong"}):
            response = client.request(method, path, json=body, headers=key)
            assert_problem(response, 401)
            assert response.headers["www-authenticate"].startswith("ApiKey")
    assert client.get("/v1/documents", headers={"Authorization": "Bearer key-reader-a"}).is_success
    assert client.get("/health").status_code == 200  # operations need no key
    # Writing without the write flag: 403, whatever the scope.
    assert_problem(upload(client, "reader-a", A, "x.md", b"# X\n\nx\n"), 403)
    some_id = client.get("/v1/documents", headers=headers("reader-a")).json()["items"][0]["id"]
    assert_problem(client.delete(f"/v1/documents/{some_id}", headers=headers("reader-a")), 403)
    # A scope outside the grant: 404, as if it did not exist.
    assert_problem(upload(client, "writer-a", B, "x.md", b"# X\n\nx\n"), 404)
    assert_problem(client.get(f"/v1/documents?scope={B}", headers=headers("reader-a")), 404)
    assert_problem(ask(client, "reader-a", "what is the vault secret?", scope=B), 404)
    assert_problem(client.get(f"/v1/knowledge-points/vault-secret?scope={B}",
                              headers=headers("reader-a")), 404)  # fmt: skip


def test_scope_isolation(client: TestClient[Any]) -> None:
    """A key for scope A never sees B's text: not via query, neighbours, documents or traces."""
    seen: list[str] = []
    for body in ({}, {"scope": A}, {"scope": A, "depth": "deep"}):
        response = ask(client, "reader-a", "what is the vault secret passphrase?", **body)
        assert response.status_code == 200, response.text
        seen.append(response.text)
    documents = client.get("/v1/documents?limit=200", headers=headers("reader-a"))
    assert {d["scope"] for d in documents.json()["items"]} == {A}
    vault_id = client.get(f"/v1/documents?scope={B}", headers=headers("reader-b")).json()[
        "items"][0]["id"]  # fmt: skip
    assert_problem(client.get(f"/v1/documents/{vault_id}", headers=headers("reader-a")), 404)
    assert_problem(client.delete(f"/v1/documents/{vault_id}", headers=headers("writer-a")), 404)
    assert_problem(client.get("/v1/knowledge-points/vault-secret", headers=headers("reader-a")),
                   404)  # fmt: skip
    # granite exists in both scopes; in B it has vault-secret as a neighbour, in A it must not.
    granite = client.get("/v1/knowledge-points/granite", headers=headers("reader-a"))
    assert granite.json()["scope"] == A
    assert [n["id"] for n in granite.json()["neighbours"]] == ["basalt"]
    in_b = client.get("/v1/knowledge-points/granite", headers=headers("reader-b")).json()
    assert [n["id"] for n in in_b["neighbours"]] == ["vault-secret"]
    search = client.get("/v1/knowledge-points?q=basalt vault", headers=headers("reader-a"))
    assert [m["id"] for m in search.json()["items"]] == ["basalt"]
    both = client.get("/v1/knowledge-points/granite", headers=headers("admin"))
    assert_problem(both, 409)
    assert set(both.json()["scopes"]) == {A, B}
    seen += [documents.text, granite.text, search.text]
    # B's own key sees B's text, and its trace is B's alone.
    own = ask(client, "reader-b", "what is the vault secret passphrase?")
    assert SECRET in own.text
    trace_id = own.json()["traceId"]
    assert client.get(f"/v1/traces/{trace_id}", headers=headers("reader-b")).status_code == 200
    assert_problem(client.get(f"/v1/traces/{trace_id}", headers=headers("reader-a")), 404)
    for text in seen:
        assert SECRET not in text
        assert B not in text


def test_upload_query_delete_query(client: TestClient[Any]) -> None:
    content, path = OBSIDIAN.encode(), "rocks/obsidian.md"
    added = upload(client, "writer-a", A, "obsidian.md", content, path=path)
    assert added.status_code == 201, added.text
    result = added.json()
    assert result["status"] == "added" and result["path"] == f"{A}/rocks/obsidian.md"
    assert result["paragraphs"] == 2
    doc_id = result["documentId"]
    assert added.headers["location"] == f"/v1/documents/{doc_id}"
    again = upload(client, "writer-a", A, "obsidian.md", content, path=path)
    assert again.status_code == 200 and again.json()["status"] == "unchanged"

    document = client.get(f"/v1/documents/{doc_id}", headers=headers("reader-a")).json()
    assert [h["text"] for h in document["headings"]] == ["Obsidian", "Working it"]
    for paragraph in document["paragraphs"]:
        assert OBSIDIAN[paragraph["startOffset"] : paragraph["endOffset"]] == paragraph["text"]

    answer = ask(client, "reader-a", "what is obsidian?").json()
    assert any(c["path"] == f"{A}/rocks/obsidian.md" for c in answer["citations"]), answer
    assert "volcanic glass" in answer["answer"]

    changed = OBSIDIAN.replace("very sharp edges", "edges sharper than steel")
    updated = upload(client, "writer-a", A, "x.md", changed.encode(), path=path)
    assert updated.status_code == 200 and updated.json()["status"] == "updated"
    assert updated.json()["documentId"] == doc_id

    assert client.delete(f"/v1/documents/{doc_id}", headers=headers("writer-a")).status_code == 204
    assert_problem(client.get(f"/v1/documents/{doc_id}", headers=headers("reader-a")), 404)
    assert_problem(client.delete(f"/v1/documents/{doc_id}", headers=headers("writer-a")), 404)
    after = ask(client, "reader-a", "what is obsidian?").json()
    assert all("obsidian" not in c["path"] for c in after["citations"])
    assert_problem(client.get("/v1/knowledge-points/obsidian", headers=headers("reader-a")), 404)


def test_document_pages_follow_the_cursor(client: TestClient[Any]) -> None:
    seen: list[str] = []
    cursor: str | None = None
    for _ in range(10):
        query = f"/v1/documents?scope={A}&limit=1" + (f"&cursor={cursor}" if cursor else "")
        page = client.get(query, headers=headers("admin")).json()
        seen += [item["id"] for item in page["items"]]
        cursor = page["nextCursor"]
        if cursor is None:
            break
    paths = client.get(f"/v1/documents?scope={A}", headers=headers("admin")).json()["items"]
    assert seen == sorted(seen) == [p["id"] for p in paths]
    assert {p["path"] for p in paths} >= {f"{A}/basalt.md", f"{A}/granite.md"}


def test_knowledge_point_profile(client: TestClient[Any]) -> None:
    point = client.get("/v1/knowledge-points/basalt", headers=headers("reader-a")).json()
    assert point["title"] == "Basalt" and point["scope"] == A
    assert point["degree"] == {"incoming": {}, "outgoing": {"CONTRASTS_WITH": 1}, "total": 1}
    contrast = next(n for n in point["neighbours"] if n["type"] == "CONTRASTS_WITH")
    assert contrast == {**contrast, "direction": "out", "id": "granite", "confidence": 0.9,
                        "provenance": "front_matter"}  # fmt: skip
    assert point["documents"] == [
        {"id": point["documents"][0]["id"], "path": f"{A}/basalt.md", "title": "Basalt",
         "link": "DESCRIBED_IN"}
    ]  # fmt: skip
    found = client.get(f"/v1/knowledge-points?q=basalt rock&scope={A}", headers=headers("admin"))
    assert found.json()["items"][0]["id"] == "basalt"
    assert_problem(client.get("/v1/knowledge-points/no-such-point", headers=headers("admin")), 404)


def test_query_trace_readback_and_stream(client: TestClient[Any]) -> None:
    response = client.post("/v1/query?trace=false", json={"query": "what is basalt?"},
                           headers=headers("reader-a"))  # fmt: skip
    body = response.json()
    assert response.status_code == 200 and "trace" not in body
    assert body["status"] == "answered"
    assert body["structuredAnswer"]["directAnswer"] == body["answer"]
    assert body["traceId"] == response.headers["x-trace-id"]
    stored = client.get(f"/v1/traces/{body['traceId']}", headers=headers("reader-a")).json()
    assert stored["scope"] == A and stored["query"] == "what is basalt?"
    assert stored["trace"]["traceId"] == body["traceId"]
    assert {"retrieval", "graphContext", "ragContextPack", "cypher"} <= set(stored["trace"])

    with client.stream("POST", "/v1/query/stream", json={"query": "what is basalt?"},
                       headers=headers("reader-a")) as stream:  # fmt: skip
        assert stream.status_code == 200
        assert stream.headers["content-type"].startswith("text/event-stream")
        events = sse_events("\n".join(stream.iter_lines()))
    kinds = [kind for kind, _ in events]
    assert kinds[0] == "started" and kinds[-1] == "answer"
    assert "progress" in kinds and "error" not in kinds
    stages = {data["stage"] for kind, data in events if kind == "progress"}
    assert "retrieval" in stages
    answer = events[-1][1]
    assert answer["traceId"] == events[0][1]["traceId"] and answer["trace"]["cypher"]
    assert_problem(client.post("/v1/query/stream", json={"query": ""},
                               headers=headers("reader-a")), 400)  # fmt: skip


BAD_REQUESTS: list[tuple[str, str, str, dict[str, Any], int]] = [
    ("malformed JSON", "POST", "/v1/query",
     {"content": b'{"query": "basalt"', "headers": {"content-type": "application/json"}}, 400),
    ("not an object", "POST", "/v1/query", {"json": ["basalt"]}, 400),
    ("unknown field", "POST", "/v1/query", {"json": {"query": "basalt", "scopes": [A]}}, 400),
    ("empty query", "POST", "/v1/query", {"json": {"query": ""}}, 400),
    ("blank query", "POST", "/v1/query", {"json": {"query": " \n\t "}}, 400),
    ("over-long query", "POST", "/v1/query",
     {"json": {"query": "x" * (MAX_QUERY_CHARS + 1)}}, 400),
    ("wrong type", "POST", "/v1/query", {"json": {"query": 42}}, 400),
    ("bad depth", "POST", "/v1/query", {"json": {"query": "basalt", "depth": "deepest"}}, 400),
    ("zero topK", "POST", "/v1/query", {"json": {"query": "basalt", "topK": 0}}, 400),
    ("topK over the limit", "POST", "/v1/query",
     {"json": {"query": "basalt", "topK": 10_000}}, 400),
    ("invalid scope name", "POST", "/v1/query", {"json": {"query": "b", "scope": "a b"}}, 400),
    ("unknown document", "GET", "/v1/documents/d_00000000000000000000", {}, 404),
    ("unknown knowledge point", "GET", "/v1/knowledge-points/nothing-here", {}, 404),
    ("unknown trace", "GET", "/v1/traces/t_0000000000000000", {}, 404),
    ("malformed trace id", "GET", "/v1/traces/nope", {}, 400),
    ("bad cursor", "GET", "/v1/documents?cursor=bm9wZQ", {}, 400),
    ("bad page size", "GET", "/v1/documents?limit=0", {}, 400),
    ("empty search", "GET", "/v1/knowledge-points?q=", {}, 400),
    ("search without words", "GET", "/v1/knowledge-points?q=%2A%3F%5E", {}, 400),
    ("unknown route", "GET", "/v1/nothing", {}, 404),
    ("wrong method", "PUT", "/v1/query", {}, 405),
]  # fmt: skip


@pytest.mark.parametrize(
    ("method", "path", "kwargs", "status"), [c[1:] for c in BAD_REQUESTS],
    ids=[c[0] for c in BAD_REQUESTS],
)  # fmt: skip
def test_bad_input_is_a_4xx_problem(
    client: TestClient[Any], method: str, path: str, kwargs: dict[str, Any], status: int
) -> None:
    extra = kwargs.pop("headers", {})
    response = client.request(method, path, headers={**headers("writer-a"), **extra}, **kwargs)
    assert_problem(response, status)


def test_bad_uploads_are_4xx_problems(client: TestClient[Any]) -> None:
    text = b"# Fine\n\nFine text.\n"
    assert_problem(upload(client, "writer-a", A, "big.md", b"# Big\n\n" + b"x" * MAX_UPLOAD_BYTES),
                   413)  # fmt: skip
    assert_problem(upload(client, "writer-a", A, "logo.png", b"\x89PNG\r\n", "image/png"), 415)
    assert_problem(upload(client, "writer-a", A, "notes.rtf", text, "text/plain"), 415)
    assert_problem(upload(client, "writer-a", A, "x.pdf", text, "application/pdf"), 415)
    assert_problem(upload(client, "writer-a", A, "x.md", text, "application/pdf"), 415)
    assert_problem(upload(client, "writer-a", A, "bad.md", b"# Bad\n\n\xff\xfe text\n"), 415)
    assert_problem(upload(client, "writer-a", A, "nul.md", b"# Nul\n\n\x00\x01\n"), 415)
    assert_problem(upload(client, "writer-a", A, "x.md", text, path="../escape.md"), 400)
    assert_problem(upload(client, "writer-a", "bad scope!", "x.md", text), 400)
    broken = upload(client, "writer-a", A, "broken.md", b"---\nid: [unclosed\n---\n# B\n\nb\n")
    assert_problem(broken, 422)
    assert broken.json()["errors"][0]["severity"] == "error"
    missing = client.post("/v1/documents", data={"scope": A}, headers=headers("writer-a"))
    assert 400 <= missing.status_code < 500
    assert {d["path"] for d in _documents(client, A)} == {f"{A}/basalt.md", f"{A}/granite.md"}


HOSTILE = [
    "MATCH (n) DETACH DELETE n",
    "basalt' OR 1=1 //",
    '"}) MATCH (n) DETACH DELETE n //',
    'basalt" OR scopeKey:* OR "',
    "AND OR NOT && || ! ( ) { } [ ] ^ ~ * ? : \\ /",
    "+(-basalt~2^9) title:*",
    "$scope `Document` {id: 1}",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_text_never_reaches_cypher(client: TestClient[Any], text: str) -> None:
    from urllib.parse import quote

    before = _documents(client, A)
    responses = [
        ask(client, "writer-a", text),
        ask(client, "writer-a", "basalt", scope=text),
        client.get(f"/v1/knowledge-points?q={quote(text)}", headers=headers("writer-a")),
        client.get(
            f"/v1/knowledge-points?q=basalt&scope={quote(text)}", headers=headers("writer-a")
        ),
        client.get(f"/v1/knowledge-points/{quote(text, safe='')}", headers=headers("writer-a")),
        client.get(f"/v1/documents/{quote(text, safe='')}", headers=headers("writer-a")),
        client.delete(f"/v1/documents/{quote(text, safe='')}", headers=headers("writer-a")),
        client.get(f"/v1/traces/{quote(text, safe='')}", headers=headers("writer-a")),
        client.get(f"/v1/documents?cursor={quote(text)}", headers=headers("writer-a")),
        upload(client, "writer-a", A, "x.md", b"# X\n\nx\n", path=text),
    ]
    for response in responses:
        assert response.status_code < 500, (response.request.url, response.text)
        if response.status_code >= 400:
            assert response.headers["content-type"].startswith("application/problem+json")
    assert _documents(client, A) == before


def test_metrics_count_answers_and_stages(client: TestClient[Any]) -> None:
    ask(client, "reader-a", "what is granite?")
    text = client.get("/metrics").text
    assert 'kgs_answers_total{status="answered"}' in text
    assert 'kgs_pipeline_stage_seconds_count{stage="retrieval"}' in text
    assert 'path="/v1/query"' in text and "kgs_request_duration_seconds" in text


def _documents(client: TestClient[Any], scope: str) -> list[dict[str, Any]]:
    page = client.get(f"/v1/documents?scope={scope}&limit=200", headers=headers("admin"))
    items: list[dict[str, Any]] = page.json()["items"]
    return items
