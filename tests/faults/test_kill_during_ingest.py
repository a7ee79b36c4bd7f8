"""kill -9 in the middle of an ingest of a few hundred documents, then run the ingest again: the
graph must equal a clean ingest (same ids, counts, offsets, relations; nothing duplicated, nothing
missing). Two kills in one chain: the ingest process itself, then the Neo4j server under the
rerun.

A private Neo4j in a temporary home on its own ports (like test_local_server.py, which uses
17687/17474), so the shared test server is never disturbed. Needs Java and Maven."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from service.db import Graph
from service.db.local_server import LocalNeo4jServer
from tests.faults.support import (
    finish,
    kill_server,
    private_server,
    run_ingest,
    server_graph,
)
from tests.integration.conftest import delete_scope

pytestmark = pytest.mark.local_server

BOLT, HTTP = 17688, 17475
SCOPE = "faultkb"
DOCUMENTS = 200
PARAGRAPHS_PER_DOCUMENT = 6
KILL_AFTER_DOCUMENTS = 15  # documents committed by a run before it is killed
POLL_S = 0.02
INGEST_TIMEOUT_S = 600  # bound on one ingest subprocess
EXIT_AFTER_SERVER_KILL_S = 90  # the driver gives up retrying well within this


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalNeo4jServer]:
    instance = private_server(tmp_path_factory, "kgs-faults", bolt_port=BOLT, http_port=HTTP)
    instance.start()
    yield instance
    instance.stop()


def _knowledge_base(root: Path) -> Path:
    folder = root / SCOPE
    folder.mkdir(parents=True)
    for n in range(DOCUMENTS):
        body = "\n\n".join(
            f"Item {n} paragraph {k}: note {k} on item {n}, with a unique phrase {n * 31 + k}."
            for k in range(PARAGRAPHS_PER_DOCUMENT)
        )
        (folder / f"item-{n:03d}.md").write_text(
            f"---\nid: item-{n}\ntitle: Item {n}\n"
            f"relations:\n  - {{type: PRECEDES, target: item-{(n + 1) % DOCUMENTS}}}\n---\n"
            f"# Item {n}\n\n{body}\n\n## Notes\n\nA closing note for item {n}. "
            f"The service port is {8000 + n}.\n",
            encoding="utf-8",
        )
    return root


def _documents(graph: Graph) -> int:
    return len(graph.read("ingest/document_states", scope=SCOPE))


def _wait_for_documents(graph: Graph, process: subprocess.Popen[str], at_least: int) -> int:
    deadline = time.monotonic() + INGEST_TIMEOUT_S
    while time.monotonic() < deadline and process.poll() is None:
        count = _documents(graph)
        if count >= at_least:
            return count
        time.sleep(POLL_S)
    raise AssertionError(f"the ingest ended (rc {process.returncode}) before the kill point")


def _snapshot(graph: Graph) -> dict[str, Any]:
    documents = sorted(
        (d["id"], d["path"], d["title"], d["version"], d["contentHash"])
        for d in graph.read(
            "api/documents_page",
            scopes=[SCOPE],
            after="",
            limit=DOCUMENTS + 10,
            statuses=["active", "withdrawn"],
        )
    )
    fields = ("id", "ordinal", "kind", "startOffset", "endOffset", "startLine", "endLine", "text")
    paragraphs = {
        d[1]: [tuple(p[f] for f in fields)
               for p in graph.read("explore/document_paragraphs", path=d[1])]
        for d in documents
    }  # fmt: skip
    facts = {d[1]: [(f["id"], f["version"], f["current"], f["kind"], f["norm"], f["line"])
                    for f in graph.read("explore/document_facts", path=d[1])]
             for d in documents}  # fmt: skip
    counts = {r["label"]: r["nodes"] for r in graph.read("explore/scope_overview", scope=SCOPE)}
    return {"documents": documents, "paragraphs": paragraphs, "facts": facts, "counts": counts,
            "relations": graph.read("explore/scope_relations", scope=SCOPE)}  # fmt: skip


def test_kill_ingest_then_neo4j_mid_run_then_rerun_equals_clean_ingest(
    server: LocalNeo4jServer, tmp_path: Path
) -> None:
    """One chain: kill -9 the ingest process mid-run; run again and kill -9 the server mid-run;
    restart it and run again to the end. Then wipe and ingest cleanly as the reference."""
    root = _knowledge_base(tmp_path / "kb")
    figures: dict[str, Any] = {}

    # 1. kill -9 of the ingest process.
    with server_graph(server) as graph:
        process = run_ingest(server, root)
        figures["process_kill_at"] = _wait_for_documents(graph, process, KILL_AFTER_DOCUMENTS)
        process.kill()
        process.communicate(timeout=60)
        figures["after_process_kill"] = _documents(graph)
        assert 0 < figures["after_process_kill"] < DOCUMENTS  # the kill landed mid-run

        # 2. the same command again, and kill -9 of the Neo4j server under it.
        process = run_ingest(server, root)
        second_kill = figures["after_process_kill"] + KILL_AFTER_DOCUMENTS
        figures["server_kill_at"] = _wait_for_documents(graph, process, second_kill)
        kill_server(server)
    try:
        process.communicate(timeout=EXIT_AFTER_SERVER_KILL_S)
        figures["ingest_exit_after_server_kill"] = process.returncode
    except subprocess.TimeoutExpired:  # still retrying: end it, the rerun must cope either way
        process.kill()
        process.communicate(timeout=60)
        figures["ingest_exit_after_server_kill"] = "killed"
    assert process.returncode != 0  # the run did not complete
    server.start()
    with server_graph(server) as graph:
        figures["after_server_kill"] = _documents(graph)
        assert figures["after_process_kill"] < figures["after_server_kill"] < DOCUMENTS
        partial = _snapshot(graph)

    # 3. the same command once more, to the end; then the reference, a clean ingest.
    finish(run_ingest(server, root))
    with server_graph(server) as graph:
        recovered = _snapshot(graph)
        delete_scope(graph, SCOPE)
    finish(run_ingest(server, root))
    with server_graph(server) as graph:
        clean = _snapshot(graph)
    print(f"\nkill during ingest: {figures}")

    assert len(clean["documents"]) == DOCUMENTS
    assert clean["counts"]["Paragraph"] == DOCUMENTS * (PARAGRAPHS_PER_DOCUMENT + 1)
    assert clean["counts"]["KnowledgePoint"] == DOCUMENTS
    assert len(clean["relations"]) == DOCUMENTS
    assert all(("port", f"{8000 + n}") in {(f[3], f[4]) for f in clean["facts"][
        f"{SCOPE}/item-{n:03d}.md"]} for n in range(DOCUMENTS))  # fmt: skip
    assert recovered == clean  # ids, versions, offsets, texts, facts, counts, relations
    # What was committed before the server died was whole: each surviving document already held
    # exactly its clean paragraphs and facts (the facts are written in the paragraphs'
    # transaction), and no fact stands without its document.
    for path, rows in partial["paragraphs"].items():
        assert rows == clean["paragraphs"][path]
        assert partial["facts"][path] == clean["facts"][path]
    assert partial["counts"]["Fact"] == sum(map(len, partial["facts"].values()))
