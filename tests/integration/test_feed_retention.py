"""Change-feed retention against the real Neo4j: events older than KGS_VERSIONS_FEED_MAX_AGE_S
are deleted oldest first, in batches, once; a cursor before the deleted ones answers 410 (list,
stream and CLI) while a cursor at or after them and a fresh reader go on; a version an answer
record cites stays; and the service's own retention task deletes old events by itself."""

from __future__ import annotations

import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from functools import partial
from typing import Any

import anyio
import msgspec
import pytest
from litestar.testing import TestClient

from ingest.embeddings import SentenceTransformerEmbedder
from ingest.retention import apply_feed_retention, apply_retention
from ingest.units import document_id
from service.api import create_app
from service.api.auth import hash_key
from service.api.changes import _follow
from service.api.state import AppResources
from service.db import Graph
from service.settings import ApiKey, ApiSettings, Settings, VersionSettings
from tests.integration.conftest import delete_scope

RUN = uuid.uuid4().hex[:8]
LISTED, BATCHED, CITED, SERVED, STREAMED = (f"feedret-{RUN}-{n}" for n in "abcde")
SCOPES = (LISTED, BATCHED, CITED, SERVED, STREAMED)
KEY, EDITOR = "key-feed-retention-reader", "key-feed-retention-editor"
DAY_MS = 86_400_000
FLUSH_S = 30.0
KGS = [sys.executable, "-m", "service.cli"]


def _resources(settings: Settings, graph: Graph, embedder: SentenceTransformerEmbedder,
               **versions: Any) -> AppResources:  # fmt: skip
    api = ApiSettings(keys=(
        ApiKey(name="reader", sha256=hash_key(KEY), scopes=SCOPES),
        ApiKey(name="editor", sha256=hash_key(EDITOR), scopes=SCOPES, write=True),
    ))  # fmt: skip
    feed = VersionSettings(feed_poll_s=0.05, max_stream_s=1.0, **versions)
    return AppResources(msgspec.structs.replace(settings, api=api, versions=feed),
                        graph=graph, embedder=embedder)  # fmt: skip


@pytest.fixture(scope="module")
def app(
    settings: Settings, graph: Graph, embedder: SentenceTransformerEmbedder
) -> Iterator[tuple[TestClient[Any], AppResources]]:
    resources = _resources(settings, graph, embedder)
    try:
        with TestClient(create_app(resources.settings, resources)) as client:
            yield client, resources
    finally:
        for scope in SCOPES:
            delete_scope(graph, scope)


def _obsidian(edition: str) -> str:
    return f"# Obsidian\n\nObsidian is a volcanic glass that {edition}.\n"


def _upload(client: TestClient[Any], scope: str, name: str, text: str) -> None:
    response = client.post("/v1/documents", data={"scope": scope},
                           files={"file": (name, text.encode(), "text/markdown")},
                           headers={"X-API-Key": EDITOR})  # fmt: skip
    assert response.status_code in (200, 201), response.text


def _events(client: TestClient[Any], graph: Graph, scope: str, count: int) -> list[dict[str, Any]]:
    """`count` events in `scope` (one new document each), then the feed's stored times."""
    for number in range(count):
        _upload(client, scope, f"rock-{number}.md",
                f"# Rock {number}\n\nRock number {number} is a kind of basalt.\n")  # fmt: skip
        time.sleep(0.005)  # each event its own millisecond
    return _stored(graph, scope)


def _stored(graph: Graph, scope: str) -> list[dict[str, Any]]:
    return graph.read_text(
        "MATCH (e:ChangeEvent {scope: $scope}) RETURN e.seq AS seq, e.atMs AS atMs ORDER BY seq",
        {"scope": scope},
    )


def _deleted_through(graph: Graph, scope: str) -> Any:
    [row] = graph.read("api/changes_boundary", scope=scope)
    return row["deletedThrough"]


def _page(client: TestClient[Any], scope: str, **params: Any) -> Any:
    return client.get("/v1/changes", params={"scope": scope, **params},
                      headers={"X-API-Key": KEY})  # fmt: skip


def _assert_expired(response: Any, after: int, oldest: int) -> None:
    assert response.status_code == 410, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body = response.json()
    assert body["expired"] is True and body["after"] == after
    assert body["oldestRetained"] == oldest and body["restartAfter"] == 0
    assert "deleted by retention" in body["detail"] and "after=0" in body["detail"]


def _kgs(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*KGS, *args], env=env, capture_output=True, text=True, timeout=120)


def test_a_cursor_before_deleted_events_answers_410_and_the_others_go_on(
    app: tuple[TestClient[Any], AppResources], graph: Graph, cli_env: dict[str, str]
) -> None:
    client, _ = app
    stored = _events(client, graph, LISTED, 5)
    assert [e["seq"] for e in stored] == [1, 2, 3, 4, 5]
    rules = VersionSettings(feed_max_age_s=60.0)
    # A fixed "now" that makes events 1 to 3 older than the minute the rules keep.
    now_ms = stored[2]["atMs"] + 1 + 60_000
    report = apply_feed_retention(graph, rules, scope=LISTED, now_ms=now_ms)
    assert (report.deleted, report.feeds) == (3, 1)
    assert [e["seq"] for e in _stored(graph, LISTED)] == [4, 5]
    assert _deleted_through(graph, LISTED) == 3  # what the 410 is judged by

    for after in (1, 2):  # events after it up to 3 were deleted unread
        _assert_expired(_page(client, LISTED, after=after), after, 4)
    for after, seqs in ((3, [4, 5]), (4, [5]), (5, [])):  # at or after the boundary
        page = _page(client, LISTED, after=after)
        assert page.status_code == 200, page.text
        assert [e["seq"] for e in page.json()["items"]] == seqs
        assert page.json()["last"] == (seqs[-1] if seqs else after)
    for fresh in ({}, {"after": 0}):  # no cursor: the events kept
        page = _page(client, LISTED, **fresh).json()
        assert [e["seq"] for e in page["items"]] == [4, 5] and page["last"] == 5
        assert set(page) == {"scope", "items", "last"}

    # The stream: 410 before it starts, for `after` and for Last-Event-ID alike.
    _assert_expired(client.get("/v1/changes/stream", params={"scope": LISTED, "after": 2},
                               headers={"X-API-Key": KEY}), 2, 4)  # fmt: skip
    _assert_expired(client.get("/v1/changes/stream", params={"scope": LISTED},
                               headers={"X-API-Key": KEY, "Last-Event-ID": "1"}), 1, 4)  # fmt: skip
    with client.stream("GET", "/v1/changes/stream", params={"scope": LISTED},
                       headers={"X-API-Key": KEY, "Last-Event-ID": "3"}) as stream:  # fmt: skip
        assert stream.status_code == 200
        body = "".join(stream.iter_text())  # ends after max_stream_s
    assert [int(line[4:]) for line in body.splitlines() if line.startswith("id: ")] == [4, 5]

    # New events number on from the counter; the kept cursor still reads them.
    _upload(client, LISTED, "later.md", "# Later\n\nWritten after retention.\n")
    assert [e["seq"] for e in _page(client, LISTED, after=3).json()["items"]] == [4, 5, 6]

    # `kgs changes` refuses the same cursor, and reads from the boundary on.
    expired = _kgs(cli_env, "changes", LISTED, "--after", "2")
    assert expired.returncode == 1 and "deleted by retention" in expired.stderr, expired.stderr
    kept = _kgs(cli_env, "changes", LISTED, "--after", "3")
    assert kept.returncode == 0, kept.stderr
    assert [msgspec.json.decode(line)["seq"] for line in kept.stdout.splitlines()] == [4, 5, 6]


def test_feed_retention_deletes_in_batches_once(
    app: tuple[TestClient[Any], AppResources], graph: Graph, cli_env: dict[str, str]
) -> None:
    client, _ = app
    stored = _events(client, graph, BATCHED, 7)
    rules = VersionSettings(feed_max_age_s=60.0, feed_retention_batch=2)
    now_ms = stored[3]["atMs"] + 1 + 60_000  # events 1 to 4 are old
    dry = apply_feed_retention(graph, rules, scope=BATCHED, dry_run=True, now_ms=now_ms)
    assert (dry.dry_run, dry.deleted, dry.feeds) == (True, 4, 1)
    assert len(_stored(graph, BATCHED)) == 7  # a dry run deletes nothing

    counted = graph.child()
    report = apply_feed_retention(counted, rules, scope=BATCHED, now_ms=now_ms)
    writes = [c.rows for c in counted.calls if c.statement == "versions/expire_feed_events"]
    assert report.deleted == 4 and len(writes) == 3  # 2 + 2, then a batch that meets event 5
    assert [e["seq"] for e in _stored(graph, BATCHED)] == [5, 6, 7]
    assert _deleted_through(graph, BATCHED) == 4

    again = graph.child()  # idempotent: nothing left that old, and no write to find that out
    assert apply_feed_retention(again, rules, scope=BATCHED, now_ms=now_ms).deleted == 0
    assert not any(c.statement == "versions/expire_feed_events" for c in again.calls)
    assert _deleted_through(graph, BATCHED) == 4
    off = VersionSettings(feed_max_age_s=0.0)  # 0: the feed keeps every event
    a_year_on = now_ms + 365 * DAY_MS
    assert apply_feed_retention(graph, off, scope=BATCHED, now_ms=a_year_on).deleted == 0

    # `kgs retention apply` runs the same feed retention (here with a 1 ms age: all of it).
    env = {**cli_env, "KGS_VERSIONS_FEED_MAX_AGE_S": "0.001"}
    dry_cli = _kgs(env, "retention", "apply", "--dry-run", "--scope", BATCHED)
    assert dry_cli.returncode == 0, dry_cli.stderr
    assert "change-feed events would delete 3 (of 1 scopes)" in dry_cli.stdout, dry_cli.stdout
    applied = _kgs(env, "retention", "apply", "--scope", BATCHED)
    assert "change-feed events deleted 3 (of 1 scopes)" in applied.stdout, applied.stdout
    assert _stored(graph, BATCHED) == [] and _deleted_through(graph, BATCHED) == 7
    assert _page(client, BATCHED).json() == {"scope": BATCHED, "items": [], "last": 0}
    assert _page(client, BATCHED, after=7).status_code == 200
    _assert_expired(_page(client, BATCHED, after=6), 6, 8)


def test_a_stream_that_retention_overtakes_ends(
    app: tuple[TestClient[Any], AppResources], graph: Graph,
    settings: Settings, embedder: SentenceTransformerEmbedder,
) -> None:  # fmt: skip
    """A stream behind the boundary when retention runs ends rather than skip what was deleted;
    its reconnect (Last-Event-ID) gets the 410."""
    client, _ = app
    stored = _events(client, graph, STREAMED, 3)
    slow = _resources(settings, graph, embedder, max_feed_page=1)  # one event per read
    retain = partial(apply_feed_retention, graph, VersionSettings(feed_max_age_s=60.0),
                     scope=STREAMED, now_ms=stored[1]["atMs"] + 1 + 60_000)  # fmt: skip

    async def follow() -> list[int]:
        seen: list[int] = []
        async for message in _follow(slow, STREAMED, 0):
            if message.event != "change":
                continue
            seen.append(int(str(message.id)))
            if len(seen) == 1:  # events 1 and 2 go while the stream is at 1
                assert (await anyio.to_thread.run_sync(retain)).deleted == 2
        return seen

    assert anyio.run(follow) == [1]  # ended at once: neither 2 (deleted) nor 3 (after a gap)
    _assert_expired(client.get("/v1/changes/stream", params={"scope": STREAMED},
                               headers={"X-API-Key": KEY, "Last-Event-ID": "1"}), 1, 3)  # fmt: skip


def test_a_version_a_kept_answer_record_cites_is_never_released(
    app: tuple[TestClient[Any], AppResources], graph: Graph
) -> None:
    """The feed's retention runs in the same pass as the versions' and changes none of their
    rules: with every age rule at its shortest, the cited version stays."""
    client, resources = app
    name = "obsidian.md"
    for edition in ("forms when lava cools fast", "was used for blades"):
        _upload(client, CITED, name, _obsidian(edition))
    doc = document_id(CITED, f"{CITED}/{name}")
    answer = client.post("/v1/query", json={"query": "what was obsidian used for?", "scope": CITED},
                         headers={"X-API-Key": KEY}).json()  # fmt: skip
    assert any(c["documentId"] == doc and c["documentVersion"] == 2 for c in answer["citations"])
    assert resources.records is not None and resources.records.flush(FLUSH_S)
    for edition in ("is found in Iceland", "breaks with a conchoidal fracture"):
        _upload(client, CITED, name, _obsidian(edition))

    rules = VersionSettings(keep_last=1, keep_age_s=0.0, feed_max_age_s=0.001)
    report = apply_retention(graph, rules, scope=CITED, now_ms=int(time.time() * 1000) + 1_000)
    assert report.feed.deleted == 4 and report.released == 2  # versions 1 and 3
    versions = client.get(f"/v1/documents/{doc}/versions", headers={"X-API-Key": KEY}).json()
    assert [v["version"] for v in versions["items"]] == [4, 2]  # the head and the cited one
    cited = client.get(f"/v1/documents/{doc}/source", params={"version": 2},
                       headers={"X-API-Key": KEY})  # fmt: skip
    assert cited.status_code == 200 and "used for blades" in cited.text
    again = apply_retention(graph, rules, scope=CITED, now_ms=int(time.time() * 1000) + 1_000)
    assert (again.released, again.feed.deleted) == (0, 0)
    _assert_expired(_page(client, CITED, after=1), 1, 5)


def test_the_service_deletes_old_feed_events_itself(
    settings: Settings, graph: Graph, embedder: SentenceTransformerEmbedder
) -> None:
    """`kgs serve`'s retention task (retain_versions, every KGS_VERSIONS_RETENTION_INTERVAL_S)
    deletes feed events older than KGS_VERSIONS_FEED_MAX_AGE_S with no call from outside. The
    pass covers every scope, so the rules stay the defaults (90 days; and no version leaves
    anywhere) and this test's own events are made 100 days old."""
    resources = _resources(settings, graph, embedder, retention_interval_s=0.2,
                           keep_last=1_000_000)  # fmt: skip
    with TestClient(create_app(resources.settings, resources)) as served:
        stored = _events(served, graph, SERVED, 3)
        with graph.driver.session(database=graph.database) as session:
            session.run(
                "MATCH (e:ChangeEvent {scope: $scope}) WHERE e.seq <= 2 SET e.atMs = e.atMs - $age",
                {"scope": SERVED, "age": 100 * DAY_MS},
            ).consume()
        deadline = time.monotonic() + 30.0
        while _page(served, SERVED, after=1).status_code != 410:
            assert time.monotonic() < deadline, "the retention task deleted nothing in 30 s"
            time.sleep(0.2)
        _assert_expired(_page(served, SERVED, after=1), 1, 3)
        assert [e["seq"] for e in _stored(graph, SERVED)] == [3]
        assert [e["seq"] for e in _page(served, SERVED, after=2).json()["items"]] == [3]
        assert [e["seq"] for e in _page(served, SERVED).json()["items"]] == [3]
    assert len(stored) == 3
