"""kill -9 during an escalation's confirmation never leaves a half-created ticket.

A draft citing 1,000 paragraphs makes the confirming transaction long enough to be hit: it
creates the ticket, its scope and answer links and 1,000 CITES relations, and marks the draft
confirmed. First the confirming process is killed at points spread over that transaction's
measured duration, then the Neo4j server itself under a confirmation. After every kill the draft
is either still pending with no ticket at all, or confirmed with exactly one ticket that holds
every link; the owner's next confirmation then yields exactly one ticket (created only when none
was). A private Neo4j on its own ports (17691/17478). Needs Java and Maven."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

from service.db import Graph
from service.db.local_server import LocalNeo4jServer
from service.escalations import DraftContent, EvidenceQuote, confirm_draft, create_draft
from tests.faults.support import (
    RUN_TIMEOUT_S,
    finish,
    kill_server,
    private_server,
    run_ingest,
    server_env,
    server_graph,
)

pytestmark = pytest.mark.local_server

BOLT, HTTP = 17691, 17478
SCOPE = "gapkb"
KEY = "support"
DOCUMENTS = 10
PARAGRAPHS_PER_DOCUMENT = 100
# Kills of the confirming process, as shares of a confirmation's measured duration after the
# child reports ready; the last lands well after its commit.
KILL_POINTS = (0.05, 0.2, 0.4, 0.6, 0.8, 4.0)
SETTLE_S = 60.0


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalNeo4jServer]:
    instance = private_server(tmp_path_factory, "kgs-confirm-faults", bolt_port=BOLT,
                              http_port=HTTP)  # fmt: skip
    instance.start()
    yield instance
    instance.stop()


def test_kill_during_confirm(server: LocalNeo4jServer, tmp_path: Path) -> None:
    folder = tmp_path / "kb" / SCOPE
    folder.mkdir(parents=True)
    for n in range(DOCUMENTS):
        body = "\n\n".join(f"Item {n} note {k}: a statement numbered {n * 1000 + k}."
                           for k in range(PARAGRAPHS_PER_DOCUMENT))  # fmt: skip
        (folder / f"item-{n:02d}.md").write_text(f"# Item {n}\n\n{body}\n", encoding="utf-8")
    finish(run_ingest(server, tmp_path / "kb"))
    with server_graph(server) as graph:
        content = _content(graph)
        # Undisturbed confirmations: the second one's time (the plan cached, as the child finds
        # it) is the window the kills aim at.
        for _ in range(2):
            timed = create_draft(graph, content, key_name=KEY, ttl_s=3600)
            started = time.monotonic()
            outcome = confirm_draft(graph, timed.draft_id, KEY, timed.draft)
            window_s = time.monotonic() - started
            assert outcome is not None and outcome.created
        seen = []
        for point in KILL_POINTS:
            draft = create_draft(graph, content, key_name=KEY, ttl_s=3600)
            child = _confirm_in_child(server, draft.draft_id, draft.draft, tmp_path)
            time.sleep(point * window_s)
            child.kill()
            child.wait(RUN_TIMEOUT_S)
            _settled(graph)
            seen.append(_whole(graph, draft.draft_id))
            again = confirm_draft(graph, draft.draft_id, KEY, draft.draft)
            assert again is not None and again.created == (seen[-1] == "pending")
            assert _whole(graph, draft.draft_id) == "confirmed"
        # Some kill landed before the commit, and the last one after it.
        assert "pending" in seen and seen[-1] == "confirmed", (seen, window_s)
        draft = create_draft(graph, content, key_name=KEY, ttl_s=3600)
    child = _confirm_in_child(server, draft.draft_id, draft.draft, tmp_path)
    time.sleep(0.5 * window_s)
    kill_server(server)
    child.kill()
    child.wait(RUN_TIMEOUT_S)
    server.start()
    with server_graph(server) as graph:
        state = _whole(graph, draft.draft_id)
        again = confirm_draft(graph, draft.draft_id, KEY, draft.draft)
        assert again is not None and again.created == (state == "pending")
        assert _whole(graph, draft.draft_id) == "confirmed"


def _content(graph: Graph) -> DraftContent:
    evidence = [
        EvidenceQuote(
            document_id=d["id"], document_version=d["version"], path=d["path"], heading_path=[],
            start_offset=p["startOffset"], end_offset=p["endOffset"], quote=p["text"],
            source="hit",
        )
        for d in graph.read("ingest/document_states", scope=SCOPE)
        for p in graph.read("api/document_paragraphs", id=d["id"])
    ]  # fmt: skip
    assert len(evidence) >= DOCUMENTS * PARAGRAPHS_PER_DOCUMENT
    return DraftContent(question="What is item 7's note 3?", scope=SCOPE,
                        answer_id="t_0123456789abcdef", answer_status="abstained",
                        missing_terms=[], reasons=[], evidence=evidence, conflicts=[],
                        note=None)  # fmt: skip


def _confirm_in_child(
    server: LocalNeo4jServer, draft_id: str, content: dict[str, object], tmp_path: Path
) -> subprocess.Popen[str]:
    """The confirmation in a child process, returned once it is about to run."""
    content_file = tmp_path / f"{draft_id}.json"
    content_file.write_bytes(msgspec.json.encode(content))
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.faults.confirm_child", draft_id, KEY, str(content_file)],
        env=server_env(server), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        cwd=Path(__file__).resolve().parents[2],
    )  # fmt: skip
    assert child.stdout is not None
    line = child.stdout.readline()
    assert line.strip() == "ready", (line, child.stderr.read() if child.stderr else "")
    return child


def _settled(graph: Graph) -> None:
    """Wait until the server has ended the killed process's transaction: a COMMIT sent just
    before the kill still lands, and one cut off before its COMMIT is rolled back."""
    deadline = time.monotonic() + SETTLE_S
    while graph.read("admin/open_transactions")[0]["open"] > 1:  # the SHOW itself is one
        assert time.monotonic() < deadline, "the killed confirmation's transaction never ended"
        time.sleep(0.05)


def _whole(graph: Graph, draft_id: str) -> str:
    """The draft's status, once proven whole: pending with no ticket, or confirmed with exactly
    one ticket holding every link."""
    [row] = graph.read("escalations/draft_tickets", draftId=draft_id)
    if row["draftStatus"] == "pending":
        assert row["tickets"] == [] and row["draftTicketId"] is None, row
    else:
        assert row["draftStatus"] == "confirmed", row
        [ticket] = row["tickets"]
        assert ticket["id"] == row["draftTicketId"] and ticket["scopes"] == [SCOPE], row
        assert ticket["cited"] == ticket["draftCited"] >= DOCUMENTS * PARAGRAPHS_PER_DOCUMENT
    return str(row["draftStatus"])
