"""kill -9 in the middle of an update (every document of a scope gets a version 2) leaves one
consistent head per document, a readable history and a gap-free change feed. Two kills in one
chain: the ingest process itself, then the Neo4j server under the rerun; a last run completes
the update and makes no duplicate version.

After each kill `_check_consistent` proves, from what clients read (api/ statements) and from
the raw graph:
- every document is active at version 1 or 2 and holds a DocumentVersion for every version up to
  its head, each with its exact source (byte for byte the file text of that version) and a
  structure whose paragraphs are `source[startOffset:endOffset]`;
- the head's searchable projection (paragraphs and headings) is exactly the head version's
  structure: never a mix of the old and the new text;
- the feed numbers are 1..n (no gap, no duplicate, the counter at n), and replaying it rebuilds
  each document's (version, status);
- no Paragraph, Heading or DocumentVersion is left without its Document.

A private Neo4j in a temporary home on its own ports (test_local_server.py uses 17687/17474,
test_kill_during_ingest.py 17688/17475), so the shared test server is never disturbed. Needs
Java and Maven."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ingest.versions import decode_structure
from service.db import Graph
from service.db.local_server import LocalNeo4jServer
from tests.faults.support import (
    finish,
    kill_server,
    private_server,
    run_ingest,
    run_kgs,
    server_graph,
)
from tests.feed import replayed

pytestmark = pytest.mark.local_server

BOLT, HTTP = 17689, 17476
SCOPE = "updatekb"
DOCUMENTS = 150
PARAGRAPHS_PER_DOCUMENT = 4
KILL_AFTER_DOCUMENTS = 15  # documents a run brings to version 2 before it is killed
POLL_S = 0.02
INGEST_TIMEOUT_S = 600  # bound on one ingest subprocess
FEED_PAGE = 100
PUBLIC_PARAGRAPH = ("id", "ordinal", "kind", "headingPath", "startOffset", "endOffset",
                    "startLine", "endLine", "text", "pageFirst", "pageLast", "pageStarts",
                    "anchor")  # fmt: skip
ORPHANS = """
MATCH (n) WHERE (n:Paragraph OR n:Heading OR n:DocumentVersion)
  AND NOT EXISTS { MATCH (d:Document) WHERE d.id = n.documentId }
RETURN labels(n) AS labels, n.id AS id, n.documentId AS documentId
UNION ALL
MATCH (v:DocumentVersion) WHERE NOT EXISTS { (:Document {id: v.documentId})-[:HAS_VERSION]->(v) }
RETURN labels(v) AS labels, null AS id, v.documentId AS documentId
"""
ALL_DOCUMENTS = "MATCH (d:Document) RETURN d.id AS id, d.scope AS scope, d.path AS path, " \
    "d.version AS version, d.status AS status, d.contentHash AS contentHash"  # fmt: skip
COUNTER = "MATCH (c:ChangeCounter {feed: $scope}) RETURN c.seq AS seq"

Texts = dict[str, str]  # knowledge-base path -> file text
Row = dict[str, Any]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalNeo4jServer]:
    instance = private_server(tmp_path_factory, "kgs-update-faults", bolt_port=BOLT,
                              http_port=HTTP)  # fmt: skip
    instance.start()
    yield instance
    instance.stop()


def _text(n: int, edition: int) -> str:
    """Document n as of version `edition`: version 2 rewrites every paragraph, adds one and
    renames a heading, so a projection mixing the two versions cannot go unnoticed."""
    count = PARAGRAPHS_PER_DOCUMENT + (edition - 1)
    body = "\n\n".join(
        f"Item {n} paragraph {k}, edition {edition}: note {k} on item {n}, "
        f"with a unique phrase {n * 31 + k + edition * 10_000}."
        for k in range(count)
    )
    notes = "Notes" if edition == 1 else "Revised notes"
    return (
        f"---\nid: item-{n}\ntitle: Item {n}\n---\n# Item {n}\n\n{body}\n\n"
        f"## {notes}\n\nA closing note for item {n}, edition {edition}.\n"
    )


def _write_edition(root: Path, edition: int) -> Texts:
    folder = root / SCOPE
    folder.mkdir(parents=True, exist_ok=True)
    texts: Texts = {}
    for n in range(DOCUMENTS):
        name = f"item-{n:03d}.md"
        texts[f"{SCOPE}/{name}"] = _text(n, edition)
        (folder / name).write_text(texts[f"{SCOPE}/{name}"], encoding="utf-8")
    return texts


def _at_version_2(graph: Graph) -> int:
    return sum(1 for d in graph.read("ingest/document_states", scope=SCOPE) if d["version"] == 2)


def _wait_for_version_2(graph: Graph, process: subprocess.Popen[str], at_least: int) -> int:
    deadline = time.monotonic() + INGEST_TIMEOUT_S
    while time.monotonic() < deadline and process.poll() is None:
        count = _at_version_2(graph)
        if count >= at_least:
            return count
        time.sleep(POLL_S)
    raise AssertionError(f"the ingest ended (rc {process.returncode}) before the kill point")


def _feed(graph: Graph, scope: str) -> list[Row]:
    """The whole feed, read in pages as a client would."""
    events: list[Row] = []
    while True:
        after = events[-1]["seq"] if events else 0
        page = graph.read("api/changes_page", scope=scope, after=after, limit=FEED_PAGE)
        if not page:
            return events
        events.extend(page)


def _check_history(graph: Graph, document: Row, texts: dict[int, Texts]) -> dict[str, Any]:
    """Every version up to the head is there and whole; returns the head version's structure."""
    doc_id, path, head = document["id"], document["path"], document["version"]
    listed = graph.read("api/document_versions", id=doc_id)
    assert [v["version"] for v in listed] == list(range(head, 0, -1)), (path, listed)
    assert [v["head"] for v in listed] == [v["version"] == head for v in listed], (path, listed)
    structure: dict[str, Any] = {}
    for number in range(1, head + 1):
        rows = graph.read("api/document_version", id=doc_id, version=number)
        assert len(rows) == 1, (path, number, len(rows))
        source = rows[0]["source"]
        assert source == texts[number][path], (path, number)  # byte for byte that edition
        structure = decode_structure(rows[0]["structure"])
        assert structure["paragraphs"], (path, number)
        for paragraph in structure["paragraphs"]:
            assert source[paragraph["startOffset"] : paragraph["endOffset"]] == paragraph["text"]
        for heading in structure["headings"]:
            assert heading["text"] in source[heading["startOffset"] : heading["endOffset"]]
        if number == head:
            assert rows[0]["contentHash"] == document["contentHash"], path
    return structure


def _check_consistent(graph: Graph, scope: str, v1_texts: Texts, v2_texts: Texts) -> Row:
    """The invariants an interrupted update must keep (module docstring); returns figures."""
    texts = {1: v1_texts, 2: v2_texts}
    documents = graph.read_text(ALL_DOCUMENTS, {})  # raw: a half-made node would show here
    assert sorted(d["path"] for d in documents) == sorted(v1_texts)  # each once, none half-made
    for document in documents:
        assert document["scope"] == scope and document["status"] == "active", document
        assert document["version"] in (1, 2), document
    listed = graph.read("api/documents_page", scopes=[scope], after="", statuses=["active"],
                        limit=len(documents) + 10)  # fmt: skip
    assert sorted(d["id"] for d in listed) == sorted(d["id"] for d in documents)

    for document in documents:
        structure = _check_history(graph, document, texts)
        doc_id, path = document["id"], document["path"]
        # The head projection is the head version, whole: no mix of editions.
        paragraphs = graph.read("api/document_paragraphs", id=doc_id)
        assert [{f: p[f] for f in PUBLIC_PARAGRAPH} for p in paragraphs] == structure[
            "paragraphs"
        ], path
        assert graph.read("api/document_headings", id=doc_id) == structure["headings"], path
        edition = f"edition {document['version']}"
        assert all(edition in p["text"] for p in paragraphs), path

    events = _feed(graph, scope)
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))  # no gap, no duplicate
    assert graph.read_text(COUNTER, {"scope": scope}) == [{"seq": len(events)}]
    assert replayed(events) == {d["id"]: (d["version"], d["status"]) for d in documents}
    kinds = [e["kind"] for e in events]
    for event in events:
        if event["kind"] == "updated":
            assert (event["oldVersion"], event["newVersion"]) == (1, 2), event
    # Each version that exists was announced exactly once, and no event names a lost version.
    announced = sorted((e["documentId"], e["newVersion"]) for e in events
                       if e["kind"] in ("added", "updated"))  # fmt: skip
    made = sorted((d["id"], v) for d in documents for v in range(1, d["version"] + 1))
    assert announced == made
    assert len(kinds) == len(announced)  # nothing withdrawn, restored or purged
    assert graph.read_text(ORPHANS, {}) == []
    return {
        "at_v2": sum(1 for d in documents if d["version"] == 2),
        "events": len(events),
        "added": kinds.count("added"),
        "updated": kinds.count("updated"),
    }


def test_kill_ingest_then_neo4j_during_an_update_keeps_heads_history_and_feed(
    server: LocalNeo4jServer, tmp_path: Path
) -> None:
    """Version 1 of every document; then an update to version 2: kill -9 the ingest process
    mid-run; run again and kill -9 the server mid-run; restart it; run again to the end."""
    root = tmp_path / "kb"
    v1_texts = _write_edition(root, 1)
    figures: dict[str, Any] = {}
    started = time.monotonic()

    finish(run_ingest(server, root))
    with server_graph(server) as graph:
        clean = _check_consistent(graph, SCOPE, v1_texts, {})
        assert clean == {"at_v2": 0, "events": DOCUMENTS, "added": DOCUMENTS, "updated": 0}

        # 1. the update, and kill -9 of the ingest process.
        v2_texts = _write_edition(root, 2)
        process = run_ingest(server, root)
        figures["process_kill_at"] = _wait_for_version_2(graph, process, KILL_AFTER_DOCUMENTS)
        process.kill()
        process.communicate(timeout=60)
        after_process_kill = _check_consistent(graph, SCOPE, v1_texts, v2_texts)
        figures["after_process_kill"] = after_process_kill
        assert figures["process_kill_at"] <= after_process_kill["at_v2"] < DOCUMENTS

        # 2. the same command again, and kill -9 of the Neo4j server under it.
        process = run_ingest(server, root)
        second_kill = after_process_kill["at_v2"] + KILL_AFTER_DOCUMENTS
        figures["server_kill_at"] = _wait_for_version_2(graph, process, second_kill)
        kill_server(server)
    # The ingester could only retry against a dead server (test_kill_during_ingest.py waits for
    # it to give up, about a minute); ended now, it cannot write to the restarted one, so what
    # the checks read is exactly what survived the crash.
    process.kill()
    process.communicate(timeout=60)
    server.start()
    with server_graph(server) as graph:
        after_server_kill = _check_consistent(graph, SCOPE, v1_texts, v2_texts)
        figures["after_server_kill"] = after_server_kill
        # Every commit seen before the kill survived it, and the kill still landed mid-update.
        assert figures["server_kill_at"] <= after_server_kill["at_v2"] < DOCUMENTS

    # 3. the same command once more, to the end: every document at version 2, exactly once.
    finish(run_ingest(server, root))
    with server_graph(server) as graph:
        final = _check_consistent(graph, SCOPE, v1_texts, v2_texts)
        figures["final"] = final
        rerun = run_kgs(
            server, "ingest", str(root), "--no-progress"
        )  # nothing left to do: no version, no event
        finish(rerun)
        assert _check_consistent(graph, SCOPE, v1_texts, v2_texts) == final
    figures["elapsed_s"] = round(time.monotonic() - started, 1)
    print(f"\nkill during update: {figures}")

    assert final == {
        "at_v2": DOCUMENTS,
        "events": 2 * DOCUMENTS,
        "added": DOCUMENTS,
        "updated": DOCUMENTS,  # no rerun made a duplicate version
    }
