"""Escalation of knowledge gaps through the API against the real Neo4j (docs/escalations.md):
preview, confirm once under concurrency, the refusals (changed 409, expired 410, another key
404, cancelled 409), the ticket's links in the graph, listing, resolution, and a gap that closes
itself once a document that answers it is uploaded."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import msgspec
import pytest
from litestar.testing import TestClient

from ingest.embeddings import SentenceTransformerEmbedder
from service.api import create_app
from service.api.auth import hash_key
from service.api.state import AppResources
from service.db import Graph
from service.settings import ApiKey, ApiSettings, EscalationSettings, Settings
from tests.integration.conftest import delete_scope

S = f"esc-a-{uuid.uuid4().hex[:8]}"
OTHER = f"esc-b-{uuid.uuid4().hex[:8]}"
KEYS = {  # name -> (key, scopes, write)
    "asker": ("key-asker", (S,), False),
    "colleague": ("key-colleague", (S,), False),  # reads the scope, owns no draft
    "stranger": ("key-stranger", (OTHER,), False),
    "editor": ("key-editor", (S,), True),
}
DRAFT_TTL_S = 4.0
CONCURRENT_CONFIRMS = 8
RECHECK_WAIT_S = 90.0  # the re-check runs every 0.5 s here; answering takes most of the time

BASALT = """# Basalt

Basalt is a fine-grained volcanic rock formed from rapidly cooled lava.

## Uses

Basalt is crushed for road construction and railway ballast.
"""
GRANITE = """# Granite

Granite is a coarse-grained intrusive igneous rock rich in quartz and feldspar.
"""
TITANIUM = """# Titanium

Titanium is a strong, light metal that resists corrosion.

## Melting point

The melting point of titanium is 1,668 °C, far above that of aluminium.
"""
GAP_QUESTION = "What is the melting point of titanium?"


def headers(name: str) -> dict[str, str]:
    return {"X-API-Key": KEYS[name][0]}


def upload(client: TestClient[Any], scope: str, name: str, text: str) -> None:
    response = client.post("/v1/documents", files={"file": (name, text.encode(), "text/markdown")},
                           data={"scope": scope}, headers=headers("editor"))  # fmt: skip
    assert response.status_code in (200, 201), response.text


def problem(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body: dict[str, Any] = response.json()
    return body


@pytest.fixture(scope="module")
def client(
    settings: Settings, graph: Graph, embedder: SentenceTransformerEmbedder
) -> Iterator[TestClient[Any]]:
    api = ApiSettings(keys=tuple(ApiKey(name=n, sha256=hash_key(k), scopes=s, write=w)
                                 for n, (k, s, w) in KEYS.items()))  # fmt: skip
    escalations = EscalationSettings(draft_ttl_s=DRAFT_TTL_S, recheck_interval_s=0.5,
                                     metric_interval_s=0.01)  # fmt: skip
    test_settings = msgspec.structs.replace(settings, api=api, escalations=escalations)
    resources = AppResources(test_settings, graph=graph, embedder=embedder)
    try:
        with TestClient(create_app(test_settings, resources)) as test_client:
            for name, text in (("granite.md", GRANITE), ("basalt.md", BASALT)):
                upload(test_client, S, name, text)
            yield test_client
    finally:
        delete_scope(graph, S)
        delete_scope(graph, OTHER)


def gap(client: TestClient[Any]) -> dict[str, Any]:
    """An answer that left a gap, and the draft its asker previewed."""
    answer = client.post("/v1/query", json={"query": GAP_QUESTION, "scope": S},
                         headers=headers("asker"))  # fmt: skip
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["status"] == "abstained", body["answer"]
    assert body["escalation"] == {"reason": "abstained", "preview": "/v1/escalations/preview"}
    preview = client.post(
        "/v1/escalations/preview", headers=headers("asker"),
        json={"answerId": body["traceId"], "note": "customers ask this"},
    )  # fmt: skip
    assert preview.status_code == 201, preview.text
    draft: dict[str, Any] = preview.json()
    assert draft["status"] == "pending" and draft["draft"]["answerId"] == body["traceId"]
    return draft


def confirm(client: TestClient[Any], draft: dict[str, Any], key: str = "asker") -> Any:
    return client.post(f"/v1/escalations/{draft['draftId']}/confirm", headers=headers(key),
                       json={"draft": draft["draft"]})  # fmt: skip


def test_draft_holds_the_gap(client: TestClient[Any]) -> None:
    draft = gap(client)
    content = draft["draft"]
    assert content["question"] == GAP_QUESTION and content["scope"] == S
    assert content["answerStatus"] == "abstained" and content["note"] == "customers ask this"
    assert content["reasons"], "the sufficiency review's failed checks say what was missing"
    assert content["evidence"], "the closest evidence the answer met"
    sources = {"basalt.md": BASALT, "granite.md": GRANITE}
    for quote in content["evidence"]:
        source = sources[quote["path"].rsplit("/", 1)[-1]]
        assert source[quote["startOffset"] : quote["endOffset"]] == quote["quote"]
    # The owner reads it back; for any other key it does not exist.
    own = client.get(f"/v1/escalations/drafts/{draft['draftId']}", headers=headers("asker"))
    assert own.status_code == 200 and own.json()["draft"] == content
    for key in ("colleague", "stranger"):
        problem(client.get(f"/v1/escalations/drafts/{draft['draftId']}", headers=headers(key)), 404)


def test_answered_or_unreadable_answers_are_not_escalated(client: TestClient[Any]) -> None:
    question = {"query": "What is basalt crushed for?", "scope": S}
    answered = client.post("/v1/query", headers=headers("asker"), json=question).json()
    assert answered["status"] == "answered" and "escalation" not in answered
    problem(client.post("/v1/escalations/preview", headers=headers("asker"),
                        json={"answerId": answered["traceId"]}), 409)  # fmt: skip
    problem(client.post("/v1/escalations/preview", headers=headers("stranger"),
                        json={"answerId": answered["traceId"]}), 404)  # fmt: skip
    problem(client.post("/v1/escalations/preview", headers=headers("asker"),
                        json={"answerId": "t_0000000000000000"}), 404)  # fmt: skip
    problem(client.post("/v1/escalations/preview", headers=headers("asker"),
                        json={"answerId": answered["traceId"], "extra": 1}), 400)  # fmt: skip


def test_confirm_once_under_concurrency(client: TestClient[Any], graph: Graph) -> None:
    draft = gap(client)
    # Another key, an unknown id, a malformed id: 404 alike, and nothing is created.
    problem(confirm(client, draft, key="colleague"), 404)
    problem(confirm(client, {**draft, "draftId": "esc_0000000000000000"}), 404)
    problem(confirm(client, {**draft, "draftId": "nonsense"}), 404)
    changed = {**draft, "draft": {**draft["draft"], "question": "something else"}}
    problem(confirm(client, changed), 409)
    with ThreadPoolExecutor(CONCURRENT_CONFIRMS) as pool:
        responses = list(pool.map(lambda _: confirm(client, draft), range(CONCURRENT_CONFIRMS)))
    statuses = sorted(r.status_code for r in responses)
    assert statuses == [200] * (CONCURRENT_CONFIRMS - 1) + [201], [r.text for r in responses]
    ticket_ids = {r.json()["ticketId"] for r in responses}
    assert len(ticket_ids) == 1
    [ticket_id] = ticket_ids
    again = confirm(client, draft)
    assert again.status_code == 200 and again.json()["ticketId"] == ticket_id
    problem(confirm(client, changed), 409)  # a changed draft, even after confirmation
    problem(client.post(f"/v1/escalations/{draft['draftId']}/cancel", headers=headers("asker")),
            409)  # fmt: skip
    [row] = graph.read("escalations/draft_tickets", draftId=draft["draftId"])
    assert row["draftStatus"] == "confirmed" and row["draftTicketId"] == ticket_id
    [made] = row["tickets"]
    assert made["scopes"] == [S] and made["answers"] == 1
    assert made["cited"] == made["draftCited"] == len(draft["draft"]["evidence"])


def test_cancelled_and_expired_drafts(client: TestClient[Any]) -> None:
    cancelled = gap(client)
    path = f"/v1/escalations/{cancelled['draftId']}/cancel"
    problem(client.post(path, headers=headers("colleague")), 404)
    done = client.post(path, headers=headers("asker"))
    assert done.status_code == 200 and done.json()["status"] == "cancelled"
    assert client.post(path, headers=headers("asker")).json()["status"] == "cancelled"
    problem(confirm(client, cancelled), 409)
    expiring = gap(client)
    time.sleep(DRAFT_TTL_S + 0.5)
    problem(confirm(client, expiring), 410)
    read = client.get(f"/v1/escalations/drafts/{expiring['draftId']}", headers=headers("asker"))
    assert read.json()["expired"] is True and read.json()["ticketId"] is None


def test_gap_closes_itself_then_an_editor_resolves_it(client: TestClient[Any]) -> None:
    draft = gap(client)
    ticket = confirm(client, draft).json()
    assert ticket["status"] == "open" and ticket["scope"] == S
    listed = client.get(f"/v1/escalations?scope={S}&status=open", headers=headers("colleague"))
    assert ticket["ticketId"] in {t["ticketId"] for t in listed.json()["items"]}
    assert not client.get("/v1/escalations", headers=headers("stranger")).json()["items"]
    problem(client.get(f"/v1/escalations?scope={S}", headers=headers("stranger")), 404)
    problem(client.get(f"/v1/escalations/tickets/{ticket['ticketId']}",
                       headers=headers("stranger")), 404)  # fmt: skip
    upload(client, S, "titanium.md", TITANIUM)
    deadline = time.monotonic() + RECHECK_WAIT_S
    path = f"/v1/escalations/tickets/{ticket['ticketId']}"
    while (now := client.get(path, headers=headers("asker")).json())["status"] == "open":
        assert time.monotonic() < deadline, "the open ticket was not asked again"
        time.sleep(0.5)
    assert now["status"] == "answerable", now
    assert {c["path"] for c in now["answerableCitations"]} == {f"{S}/titanium.md"}
    feed = client.get(f"/v1/changes?scope={S}", headers=headers("asker")).json()["items"]
    # The earlier tests' open tickets ask the same question: each closes once, announced once.
    announced = [e["ticketId"] for e in feed if e["kind"] == "gapAnswerable"]
    answerable = client.get(f"/v1/escalations?scope={S}&status=answerable",
                            headers=headers("asker")).json()["items"]  # fmt: skip
    assert ticket["ticketId"] in announced
    assert sorted(announced) == sorted(t["ticketId"] for t in answerable)
    # Only an editor key resolves it, once.
    resolve = f"{path}/resolve"
    problem(client.post(resolve, headers=headers("asker"), json={"resolution": "x"}), 403)
    problem(client.post(resolve, headers=headers("editor"), json={"resolution": " "}), 400)
    done = client.post(resolve, headers=headers("editor"), json={"resolution": "titanium.md added"})
    assert done.status_code == 200, done.text
    assert done.json()["status"] == "resolved" and done.json()["resolvedBy"] == "editor"
    problem(client.post(resolve, headers=headers("editor"), json={"resolution": "again"}), 409)
    metrics = client.get("/metrics").text
    assert 'kgs_escalations_total{event="confirmed"}' in metrics
    assert f'kgs_escalation_tickets{{scope="{S}",status="resolved"}}' in metrics
