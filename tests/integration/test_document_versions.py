"""Document versions through the API against the real Neo4j: exact history, the head answers
alone, ETag and If-Match (412), 16 concurrent editors with no lost write, withdraw, restore and
purge without orphans, the change feed replayed to the current state (after random operations,
after a restart of the service, under concurrent writers), its event stream, and retention that
keeps what answers cite."""

from __future__ import annotations

import random
import threading
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import anyio
import msgspec
import pytest
from litestar.testing import TestClient

from ingest.embeddings import SentenceTransformerEmbedder
from ingest.pipeline import ingest_file_text
from ingest.retention import apply_retention
from ingest.units import document_id
from ingest.versions import HeadChanged
from service.api import create_app
from service.api.auth import hash_key
from service.api.retention_task import retain_once
from service.api.state import AppResources
from service.db import Graph
from service.settings import ApiKey, ApiSettings, Settings, VersionSettings
from tests.feed import replayed
from tests.integration.conftest import delete_scope

SCOPE = f"versions-{uuid.uuid4().hex[:8]}"
KEYS = {  # name -> (key, scopes, write)
    "editor": ("key-versions-editor", (SCOPE,), True),
    "reader": ("key-versions-reader", (SCOPE,), False),
}
EDITORS = 16
FLUSH_S = 30.0


def _pumice(edition: str) -> str:
    return f"""# Pumice

Pumice is a light volcanic rock full of gas bubbles; {edition}.

## Uses

Pumice is ground into an abrasive for polishing stone.
"""


V1 = _pumice("it floats on water")
V2 = _pumice("it is sold as a garden soil additive")
V3 = _pumice("it was quarried on Lipari for centuries")


def _headers(name: str, **extra: str) -> dict[str, str]:
    return {"X-API-Key": KEYS[name][0], **extra}


def _resources(settings: Settings, graph: Graph, embedder: SentenceTransformerEmbedder,
               **versions: Any) -> AppResources:  # fmt: skip
    api = ApiSettings(keys=tuple(ApiKey(name=n, sha256=hash_key(k), scopes=s, write=w)
                                 for n, (k, s, w) in KEYS.items()))  # fmt: skip
    version_settings = VersionSettings(feed_poll_s=0.05, max_stream_s=1.0, **versions)
    test_settings = msgspec.structs.replace(settings, api=api, versions=version_settings)
    return AppResources(test_settings, graph=graph, embedder=embedder)


@pytest.fixture(scope="module")
def app(
    settings: Settings, graph: Graph, embedder: SentenceTransformerEmbedder
) -> Iterator[tuple[TestClient[Any], AppResources]]:
    resources = _resources(settings, graph, embedder)
    try:
        with TestClient(create_app(resources.settings, resources)) as client:
            yield client, resources
    finally:
        delete_scope(graph, SCOPE)


def _upload(client: TestClient[Any], name: str, text: str, if_match: str | None = None) -> Any:
    extra = {"If-Match": if_match} if if_match is not None else {}
    return client.post("/v1/documents", files={"file": (name, text.encode(), "text/markdown")},
                       data={"scope": SCOPE}, headers=_headers("editor", **extra))  # fmt: skip


def _feed(client: TestClient[Any], after: int = 0, limit: int = 7) -> list[dict[str, Any]]:
    """The whole feed after `after`, read in small pages as a client would."""
    events: list[dict[str, Any]] = []
    while True:
        page = client.get("/v1/changes", params={"scope": SCOPE, "after": after, "limit": limit},
                          headers=_headers("reader")).json()  # fmt: skip
        events.extend(page["items"])
        if not page["items"]:
            return events
        after = page["last"]


def _current(client: TestClient[Any]) -> dict[str, tuple[int, str]]:
    items = client.get("/v1/documents", params={"scope": SCOPE, "status": "all", "limit": 200},
                       headers=_headers("reader")).json()["items"]  # fmt: skip
    return {d["id"]: (d["version"], d["status"]) for d in items}


def _assert_feed_is_state(client: TestClient[Any]) -> list[dict[str, Any]]:
    events = _feed(client)
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))  # no gap, no duplicate
    assert replayed(events) == _current(client)
    return events


def test_versions_keep_exact_text_and_only_the_head_answers(
    app: tuple[TestClient[Any], AppResources], graph: Graph
) -> None:
    client, _ = app
    versions = []
    for text in (V1, V2, V3):
        response = _upload(client, "pumice.md", text)
        assert response.status_code in (200, 201), response.text
        versions.append(response.json()["version"])
        assert response.headers["etag"] == f'"{versions[-1]}"'
    assert versions == [1, 2, 3]
    doc = document_id(SCOPE, f"{SCOPE}/pumice.md")
    again = _upload(client, "pumice.md", V3)  # unchanged content creates nothing
    assert again.json()["status"] == "unchanged" and again.json()["version"] == 3

    history = client.get(f"/v1/documents/{doc}/versions", headers=_headers("reader"))
    assert [v["version"] for v in history.json()["items"]] == [3, 2, 1]
    assert [v["head"] for v in history.json()["items"]] == [True, False, False]
    for number, text in ((1, V1), (2, V2), (3, V3)):
        source = client.get(f"/v1/documents/{doc}/source", params={"version": number},
                            headers=_headers("reader"))  # fmt: skip
        assert source.status_code == 200 and source.text == text  # byte for byte
        old = client.get(f"/v1/documents/{doc}", params={"version": number},
                         headers=_headers("reader")).json()  # fmt: skip
        assert old["version"] == number and old["headVersion"] == 3
        for paragraph in old["paragraphs"]:  # offsets index that version's own text
            assert text[paragraph["startOffset"] : paragraph["endOffset"]] == paragraph["text"]
    missing = client.get(f"/v1/documents/{doc}", params={"version": 9},
                         headers=_headers("reader"))  # fmt: skip
    assert missing.status_code == 404

    # Only the head is in the searchable graph: the old sentences have no Paragraph node.
    texts = [r["text"] for r in graph.read("api/document_paragraphs", id=doc)]
    assert any("Lipari" in t for t in texts) and not any("floats" in t for t in texts)
    question = {"query": "where was pumice quarried?", "scope": SCOPE}
    answer = client.post("/v1/query", json=question, headers=_headers("reader")).json()
    cited = [c for c in answer["citations"] if c["documentId"] == doc]
    assert cited and all(c["documentVersion"] == 3 for c in cited), answer["citations"]
    source = client.get(f"/v1/documents/{doc}/source", params={"version": 3},
                        headers=_headers("reader")).text  # fmt: skip
    for citation in cited:  # a citation followed later lands on its exact text
        assert source[citation["startOffset"] : citation["endOffset"]] == citation["quote"]
    _assert_feed_is_state(client)


def test_a_stale_if_match_is_refused_with_412(app: tuple[TestClient[Any], AppResources]) -> None:
    client, _ = app
    first = _upload(client, "scoria.md", "# Scoria\n\nScoria is a dark vesicular rock.\n")
    assert first.status_code == 201, first.text
    doc = first.json()["documentId"]
    read = client.get(f"/v1/documents/{doc}", headers=_headers("reader"))
    assert read.headers["etag"] == '"1"'
    second = _upload(client, "scoria.md", "# Scoria\n\nScoria is red or black.\n", '"1"')
    assert second.status_code == 200 and second.json()["version"] == 2, second.text
    for stale in ('"1"', 'W/"2"', '"x"'):  # an old head, a weak tag, no tag of ours
        refused = _upload(client, "scoria.md", "# Scoria\n\nScoria forms cinder cones.\n", stale)
        assert refused.status_code == 412, refused.text
        assert refused.headers["content-type"].startswith("application/problem+json")
        assert refused.json()["currentVersion"] == 2 and refused.headers["etag"] == '"2"'
    for path in (f"/v1/documents/{doc}/withdraw",):
        refused = client.post(path, headers=_headers("editor", **{"If-Match": '"1"'}))
        assert refused.status_code == 412, refused.text
    refused = client.delete(
        f"/v1/documents/{doc}", headers=_headers("editor", **{"If-Match": '"1"'})
    )
    assert refused.status_code == 412 and refused.json()["currentVersion"] == 2
    new = _upload(client, "nothing-yet.md", "# Nothing\n\nNot here yet.\n", '"3"')
    assert new.status_code == 412 and new.json()["currentVersion"] == 0  # no such document
    history = client.get(f"/v1/documents/{doc}/versions", headers=_headers("reader")).json()
    assert [v["version"] for v in history["items"]] == [2, 1]  # refusals wrote nothing
    _assert_feed_is_state(client)


def test_sixteen_concurrent_editors_lose_no_acknowledged_write(
    app: tuple[TestClient[Any], AppResources], graph: Graph,
    embedder: SentenceTransformerEmbedder, settings: Settings,
) -> None:  # fmt: skip
    client, _ = app
    start = _upload(client, "tuff.md", "# Tuff\n\nTuff is consolidated volcanic ash.\n")
    doc, base = start.json()["documentId"], start.json()["version"]

    def edit(number: int, if_match: int | None) -> tuple[str, int] | str:
        """Straight to the ingest library, as a second replica would write: no API lock."""
        text = f"# Tuff\n\nTuff is consolidated volcanic ash, edit {number}.\n"
        try:
            report = ingest_file_text(graph, embedder, SCOPE, "tuff.md", text.encode(),
                                      settings.ingest, if_match=if_match)  # fmt: skip
        except HeadChanged:
            return "refused"
        return text, report.versions[f"{SCOPE}/tuff.md"]

    barrier = threading.Barrier(EDITORS)

    def racer(number: int, if_match: int | None) -> Callable[[], tuple[str, int] | str]:
        def run() -> tuple[str, int] | str:
            barrier.wait()
            return edit(number, if_match)

        return run

    with ThreadPoolExecutor(EDITORS) as pool:
        guarded = [f.result() for f in [pool.submit(racer(n, base)) for n in range(EDITORS)]]
    wins = [g for g in guarded if g != "refused"]
    assert len(wins) == 1 and guarded.count("refused") == EDITORS - 1  # each loser was told

    with ThreadPoolExecutor(EDITORS) as pool:
        blind = [f.result() for f in [pool.submit(racer(100 + n, None)) for n in range(EDITORS)]]
    assert "refused" not in blind
    acknowledged = [w for w in [*wins, *blind] if isinstance(w, tuple)]
    numbers = [version for _, version in acknowledged]
    assert len(set(numbers)) == len(numbers) == EDITORS + 1  # every success a distinct version
    for text, version in acknowledged:  # and every one is in the history, text intact
        source = client.get(f"/v1/documents/{doc}/source", params={"version": version},
                            headers=_headers("reader"))  # fmt: skip
        assert source.status_code == 200 and source.text == text
    _assert_feed_is_state(client)


def test_withdraw_restore_and_purge_leave_no_orphans(
    app: tuple[TestClient[Any], AppResources], graph: Graph
) -> None:
    client, resources = app
    text = ("---\nid: ignimbrite\ntitle: Ignimbrite\n---\n# Ignimbrite\n\nIgnimbrite is a "
            "welded deposit of a pyroclastic flow.\n")  # fmt: skip
    doc = _upload(client, "ignimbrite.md", text).json()["documentId"]
    before = client.get(f"/v1/documents/{doc}", headers=_headers("reader")).json()
    question = {"query": "what is ignimbrite?", "scope": SCOPE}

    withdrawn = client.post(f"/v1/documents/{doc}/withdraw", headers=_headers("editor"))
    assert withdrawn.status_code == 200 and withdrawn.json()["status"] == "withdrawn"
    assert (
        client.post(f"/v1/documents/{doc}/withdraw", headers=_headers("editor")).status_code == 409
    )
    answer = client.post("/v1/query", json=question, headers=_headers("reader")).json()
    assert all(c["documentId"] != doc for c in answer["citations"])
    assert graph.read("api/document_paragraphs", id=doc) == []
    assert client.get("/v1/knowledge-points/ignimbrite", params={"scope": SCOPE},
                      headers=_headers("reader")).status_code == 404  # fmt: skip
    listed = client.get("/v1/documents", params={"scope": SCOPE}, headers=_headers("reader"))
    assert doc not in {d["id"] for d in listed.json()["items"]}

    restored = client.post(f"/v1/documents/{doc}/restore", headers=_headers("editor"))
    assert restored.status_code == 200 and restored.json()["status"] == "restored", restored.text
    after = client.get(f"/v1/documents/{doc}", headers=_headers("reader")).json()
    assert after["version"] == before["version"] and after["paragraphs"] == before["paragraphs"]
    answer = client.post("/v1/query", json=question, headers=_headers("reader")).json()
    assert any(c["documentId"] == doc for c in answer["citations"]), answer
    # The answer's record is written after it: stored before the purge, its counts go with the
    # document (one stored later counts none: test_answer_records.py).
    assert resources.records is not None and resources.records.flush(FLUSH_S)

    assert client.delete(f"/v1/documents/{doc}", headers=_headers("editor")).status_code == 204
    assert (
        client.get(f"/v1/documents/{doc}/versions", headers=_headers("reader")).status_code == 404
    )
    [left] = graph.read_text(
        "MATCH (n) WHERE (n.documentId = $id OR n.id = $id) AND NOT n:ChangeEvent "
        "RETURN count(n) AS nodes",
        {"id": doc},
    )
    assert left["nodes"] == 0  # no paragraph, heading, version or document left (the feed stays)
    kinds = [e["kind"] for e in _assert_feed_is_state(client) if e["documentId"] == doc]
    assert kinds == ["added", "withdrawn", "restored", "purged"]


def test_the_feed_replays_to_the_state_after_random_operations_and_a_restart(
    app: tuple[TestClient[Any], AppResources], settings: Settings, graph: Graph,
    embedder: SentenceTransformerEmbedder,
) -> None:  # fmt: skip
    client, _ = app
    rng = random.Random(22)
    names = [f"random-{n}.md" for n in range(4)]
    for step in range(40):
        name = rng.choice(names)
        doc = document_id(SCOPE, f"{SCOPE}/{name}")
        operation = rng.choice(["upload", "upload", "same", "stale", "withdraw", "restore",
                                "purge"])  # fmt: skip
        if operation in ("upload", "same", "stale"):
            text = f"# {name}\n\nRandom rock fact number {step if operation != 'same' else 0}.\n"
            response = _upload(client, name, text, '"999"' if operation == "stale" else None)
            assert response.status_code in ((412,) if operation == "stale" else (200, 201))
        elif operation == "purge":
            assert client.delete(f"/v1/documents/{doc}",
                                 headers=_headers("editor")).status_code in (204, 404)  # fmt: skip
        else:
            response = client.post(f"/v1/documents/{doc}/{operation}", headers=_headers("editor"))
            assert response.status_code in (200, 404, 409), response.text
    events = _assert_feed_is_state(client)

    # A restarted service (new resources, nothing in memory) serves the same feed, and the
    # cursor a client kept goes on from where it stopped.
    restarted = _resources(settings, graph, embedder)
    with TestClient(create_app(restarted.settings, restarted)) as again:
        assert _feed(again) == events
        _upload(again, names[0], "# After\n\nWritten after the restart.\n")
        newer = _feed(again, after=events[-1]["seq"])
        assert [e["seq"] for e in newer] == [events[-1]["seq"] + 1]
        _assert_feed_is_state(again)


def test_the_event_stream_follows_the_feed(app: tuple[TestClient[Any], AppResources]) -> None:
    client, _ = app
    events = _feed(client)
    with client.stream("GET", "/v1/changes/stream", params={"scope": SCOPE},
                       headers=_headers("reader", **{"Last-Event-ID": "1"})) as stream:  # fmt: skip
        body = "".join(stream.iter_text())  # ends after max_stream_s
    ids = [int(line[4:]) for line in body.splitlines() if line.startswith("id: ")]
    assert ids == [e["seq"] for e in events[1:]]  # resumed after event 1, every later one once
    assert body.count("event: change") == len(events) - 1


def test_concurrent_writers_of_a_scope_get_consecutive_event_numbers(
    app: tuple[TestClient[Any], AppResources], graph: Graph,
    embedder: SentenceTransformerEmbedder, settings: Settings,
) -> None:  # fmt: skip
    client, _ = app
    before = _feed(client)

    def write(number: int) -> None:
        text = f"# Lapilli {number}\n\nLapilli are fragments of size class {number}.\n"
        ingest_file_text(graph, embedder, SCOPE, f"lapilli-{number}.md", text.encode(),
                         settings.ingest)  # fmt: skip

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(write, range(8)))
    events = _assert_feed_is_state(client)
    assert len(events) == len(before) + 8


def test_retention_releases_old_versions_but_keeps_what_is_cited(
    app: tuple[TestClient[Any], AppResources], graph: Graph
) -> None:
    client, resources = app
    name = "perlite.md"
    for edition in ("expands when heated", "holds water in soil"):
        _upload(client, name, f"# Perlite\n\nPerlite is a volcanic glass that {edition}.\n")
    doc = document_id(SCOPE, f"{SCOPE}/{name}")
    answer = client.post("/v1/query", json={"query": "what does perlite hold?", "scope": SCOPE},
                         headers=_headers("reader")).json()  # fmt: skip
    assert any(c["documentId"] == doc and c["documentVersion"] == 2 for c in answer["citations"])
    assert resources.records is not None and resources.records.flush(FLUSH_S)
    for edition in ("is mined in Greece", "is used in plaster"):
        _upload(client, name, f"# Perlite\n\nPerlite is a volcanic glass that {edition}.\n")

    rules = VersionSettings(keep_last=1, keep_age_s=0.0)
    dry = apply_retention(graph, rules, scope=SCOPE, dry_run=True)
    assert dry.released == 0 and dry.kept["cited"] >= 1 and dry.releasable >= 2
    versions = client.get(f"/v1/documents/{doc}/versions", headers=_headers("reader")).json()
    assert [v["version"] for v in versions["items"]] == [4, 3, 2, 1]  # the dry run kept all
    applied = apply_retention(graph, rules, scope=SCOPE)
    assert applied.released == dry.releasable
    versions = client.get(f"/v1/documents/{doc}/versions", headers=_headers("reader")).json()
    assert [v["version"] for v in versions["items"]] == [4, 2]  # the head and the cited one
    assert versions["items"][1]["citedBy"] >= 1
    cited = client.get(f"/v1/documents/{doc}/source", params={"version": 2},
                       headers=_headers("reader"))  # fmt: skip
    assert cited.status_code == 200 and "holds water" in cited.text
    # Released, not unknown: 410 for the document and its source; a version never made is 404.
    for path in (f"/v1/documents/{doc}", f"/v1/documents/{doc}/source"):
        released = client.get(path, params={"version": 1}, headers=_headers("reader"))
        assert released.status_code == 410 and "released by retention" in released.text
        assert released.headers["content-type"].startswith("application/problem+json")
        gone = released.json()
        assert gone["expired"] is True and gone["version"] == 1 and gone["releasedAt"]
        never = client.get(path, params={"version": 5}, headers=_headers("reader"))
        assert never.status_code == 404
    assert client.get(f"/v1/documents/{doc}", headers=_headers("reader")).json()["version"] == 4
    _assert_feed_is_state(client)


def test_open_streams_are_bounded(app: tuple[TestClient[Any], AppResources]) -> None:
    client, resources = app
    limit = resources.settings.versions.max_streams
    resources.feed_streams = limit  # as if that many clients were following the feed
    try:
        refused = client.get("/v1/changes/stream", params={"scope": SCOPE},
                             headers=_headers("reader"))  # fmt: skip
    finally:
        resources.feed_streams = 0
    assert refused.status_code == 503 and refused.headers["retry-after"]
    assert refused.headers["content-type"].startswith("application/problem+json")
    with client.stream("GET", "/v1/changes/stream", params={"scope": SCOPE},
                       headers=_headers("reader")) as stream:  # fmt: skip
        assert stream.status_code == 200
        "".join(stream.iter_text())
    assert resources.feed_streams == 0  # a finished stream gives its place back


def test_the_service_applies_retention_itself(
    settings: Settings, graph: Graph, embedder: SentenceTransformerEmbedder
) -> None:
    """`kgs serve` runs the retention pass on its own (retain_versions, every
    KGS_VERSIONS_RETENTION_INTERVAL_S); one pass, held to this test's scope, releases what the
    rules allow and answers 410 for it afterwards."""
    resources = _resources(settings, graph, embedder, keep_last=1, keep_age_s=0.0)
    with TestClient(create_app(resources.settings, resources)) as client:
        name = "pumice-retained.md"
        for edition in ("floats on water", "is ground into a scouring powder"):
            assert _upload(client, name, f"# Pumice\n\nPumice {edition}.\n").status_code < 300
        doc = document_id(SCOPE, f"{SCOPE}/{name}")
        report = anyio.run(retain_once, resources, SCOPE)
        assert report.released >= 1
        versions = client.get(f"/v1/documents/{doc}/versions", headers=_headers("reader")).json()
        assert [v["version"] for v in versions["items"]] == [2]
        assert client.get(f"/v1/documents/{doc}", params={"version": 1},
                          headers=_headers("reader")).status_code == 410  # fmt: skip
