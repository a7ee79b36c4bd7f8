"""Neo4j transaction timeouts end long requests (issue 8).

Every statement the service runs carries `Neo4jSettings.query_timeout_s` as its transaction
timeout (service/db/graph.py). Two proofs on the shared Neo4j:

- a write request blocked by a lock that another client holds: the API answers a 504 problem
  naming the timeout, within the timeout plus Neo4j's timeout check interval plus the retry
  budget, leaves no transaction of its own running and nothing half-written; once the lock is
  released the same request succeeds;
- a read that would run for minutes is ended by the timeout and maps to the same 504.

The lock holder and SHOW TRANSACTIONS use the plain driver with inline Cypher on purpose: they
play another client and an operator, not the service, so they are not registry statements.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import msgspec
import pytest
from litestar.testing import TestClient
from neo4j import Driver
from neo4j.exceptions import Neo4jError

from ingest.embeddings import SentenceTransformerEmbedder
from service.api import create_app
from service.api.errors import problem_for
from service.api.state import AppResources
from service.db import Graph
from service.db.selection import Connection
from service.settings import Settings
from tests.faults.support import scope_state

QUERY_TIMEOUT_S = 2.0  # the request's transaction timeout in this test
RETRY_BUDGET_S = 1.0  # the API's driver retry budget in this test (api.neo4j_retry_s)
# Neo4j ends timed-out transactions from a monitor that wakes every
# db.transaction.monitor.check.interval (default 2 s), so an end can come that much late.
NEO4J_TIMEOUT_CHECK_S = 2.0
HANG_MARGIN_S = 5.0  # scheduling slack on a busy 2-core machine; a hang takes far longer
WAIT_FOR_BLOCK_S = 10.0  # slack for the request to reach its blocked write (embedding first)
POLL_S = 0.05
READ_TIMEOUT_S = 0.5  # the long read's transaction timeout
# A read-only statement that would count for minutes (EXPLAIN classifies it 'r').
LONG_READ = "UNWIND range(1, $n) AS i WITH i WHERE i % 7 = 3 RETURN count(*) AS c"
LONG_READ_ROWS = 2_000_000_000

STONE_V1 = """---
id: timeout-stone
title: Timeout stone
aliases: [lock stone]
relations:
  - {type: CONTRASTS_WITH, target: timeout-pebble}
---
# Timeout stone

A timeout stone is a heavy marker that stays where it was put.

## Placing it

It is placed on the boundary and never moved while a lock is held.
"""
STONE_V2 = STONE_V1.replace("heavy marker", "very heavy marker")
PEBBLE = """---
id: timeout-pebble
title: Timeout pebble
---
# Timeout pebble

A timeout pebble is a small marker.
"""


@pytest.fixture
def app_client(
    settings: Settings, connection: Connection, embedder: SentenceTransformerEmbedder
) -> Iterator[TestClient[Any]]:
    """The API as `kgs serve` builds it (its own driver), with a short timeout and retry."""
    test_settings = msgspec.structs.replace(
        settings,
        neo4j=msgspec.structs.replace(
            settings.neo4j, uri=connection.uri, user=connection.user,
            password=connection.password, database=connection.database,
            query_timeout_s=QUERY_TIMEOUT_S,
        ),
        api=msgspec.structs.replace(settings.api, dev_mode=True, neo4j_retry_s=RETRY_BUDGET_S),
    )  # fmt: skip
    resources = AppResources(test_settings, embedder=embedder)
    with TestClient(create_app(test_settings, resources)) as client:
        yield client


def _upload(client: TestClient[Any], scope: str, name: str, text: str) -> Any:
    return client.post(
        "/v1/documents",
        files={"file": (name, text.encode(), "text/markdown")},
        data={"scope": scope},
    )


def _transactions(driver: Driver, database: str) -> list[dict[str, Any]]:
    records, _, _ = driver.execute_query(
        "SHOW TRANSACTIONS YIELD transactionId, status, metaData, currentQuery",
        database_=database,
    )
    return [record.data() for record in records]


def _request_transactions(driver: Driver, database: str, trace_id: str) -> list[dict[str, Any]]:
    return [
        t for t in _transactions(driver, database)
        if (t["metaData"] or {}).get("kgs.traceId") == trace_id
    ]  # fmt: skip


class LockHolder:
    """Another client's open write transaction holding the exclusive lock on one Document."""

    def __init__(self, driver: Driver, database: str, document_id: str) -> None:
        self._session = driver.session(database=database)
        self._tx = self._session.begin_transaction(metadata={"kgs.test": "lock holder"})
        summary = self._tx.run(
            "MATCH (d:Document {id: $id}) SET d.lockProbe = $marker",
            id=document_id, marker=uuid.uuid4().hex,
        ).consume()  # fmt: skip
        assert summary.counters.properties_set == 1, "the lock holder found no document"

    def release(self) -> None:
        if self._tx.closed():
            return
        self._tx.rollback()
        self._session.close()


def _blocked_request(
    client: TestClient[Any], graph: Graph, send: Any, statement: str
) -> tuple[Any, float, str, list[dict[str, Any]]]:
    """Send a request in a worker thread, see its transaction wait inside Neo4j, and return
    (response, seconds, trace id, transactions of that trace id after it returned)."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        started = time.perf_counter()
        future: Future[Any] = pool.submit(send)
        seen = _traces_waiting_in(graph, statement, future)
        response = future.result(timeout=QUERY_TIMEOUT_S + WAIT_FOR_BLOCK_S + HANG_MARGIN_S)
        elapsed = time.perf_counter() - started
    trace_id = response.headers["x-trace-id"]
    assert trace_id in seen, (seen, trace_id)  # the request's own transaction was inside Neo4j
    left = _request_transactions(graph.driver, graph.database, trace_id)
    return response, elapsed, trace_id, left


def _traces_waiting_in(graph: Graph, statement: str, future: Future[Any]) -> set[str]:
    """Trace ids of the transactions running `statement` while the request is in flight (other
    engineers' tests may run the same statement on the shared database, hence a set)."""
    seen: set[str] = set()
    deadline = time.monotonic() + QUERY_TIMEOUT_S + WAIT_FOR_BLOCK_S
    while time.monotonic() < deadline and not future.done():
        for t in _transactions(graph.driver, graph.database):
            metadata = t["metaData"] or {}
            if metadata.get("kgs.statement") == statement and "kgs.traceId" in metadata:
                seen.add(str(metadata["kgs.traceId"]))
        time.sleep(POLL_S)
    return seen


def _assert_timeout_problem(response: Any) -> None:
    assert response.status_code == 504, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body = response.json()
    assert body["status"] == 504 and "timeout" in body["detail"]
    assert body["traceId"] == response.headers["x-trace-id"]


def test_blocked_write_request_ends_at_its_timeout(
    app_client: TestClient[Any], graph: Graph, scope: str
) -> None:
    for name, text in (("pebble.md", PEBBLE), ("stone.md", STONE_V1)):
        assert _upload(app_client, scope, name, text).status_code == 201
    stone = _upload(app_client, scope, "stone.md", STONE_V1).json()  # unchanged: no write
    assert stone["status"] == "unchanged"
    document_id = stone["documentId"]
    before = scope_state(graph, scope)
    bound_s = QUERY_TIMEOUT_S + NEO4J_TIMEOUT_CHECK_S + RETRY_BUDGET_S + HANG_MARGIN_S

    holder = LockHolder(graph.driver, graph.database, document_id)
    try:
        deleted, delete_s, _, delete_left = _blocked_request(
            app_client, graph, lambda: app_client.delete(f"/v1/documents/{document_id}"),
            f"purge {document_id}",
        )  # fmt: skip
        uploaded, upload_s, _, upload_left = _blocked_request(
            app_client, graph, lambda: _upload(app_client, scope, "stone.md", STONE_V2),
            f"ingest {scope}/stone.md",
        )  # fmt: skip
    finally:
        holder.release()

    for response, elapsed, left in ((deleted, delete_s, delete_left),
                                    (uploaded, upload_s, upload_left)):  # fmt: skip
        _assert_timeout_problem(response)
        assert QUERY_TIMEOUT_S <= elapsed <= bound_s, elapsed  # ended by the timeout, no hang
        assert left == [], left  # nothing of the request still running inside Neo4j
    assert scope_state(graph, scope) == before  # both failed attempts wrote nothing

    # The lock is gone: the same requests succeed and the graph follows them whole.
    again = _upload(app_client, scope, "stone.md", STONE_V2)
    assert again.status_code == 200 and again.json()["status"] == "updated", again.text
    texts = [p["text"] for p in graph.read("api/document_paragraphs", id=document_id)]
    assert any("very heavy marker" in text for text in texts)
    removed = app_client.delete(f"/v1/documents/{document_id}")
    assert removed.status_code == 204, removed.text
    assert graph.read("api/document", id=document_id) == []
    assert graph.read("api/document_paragraphs", id=document_id) == []
    after = {r["label"]: r["nodes"] for r in graph.read("explore/scope_overview", scope=scope)}
    assert after["Document"] == 1 and after["KnowledgePoint"] >= 1  # the pebble stays
    print(
        f"\ntransaction timeout: write blocked by a held lock ended after {delete_s:.1f} s "
        f"(delete) and {upload_s:.1f} s (re-upload) with {deleted.status_code} and "
        f"{uploaded.status_code} (timeout {QUERY_TIMEOUT_S:g} s, bound {bound_s:g} s), "
        f"{len(delete_left) + len(upload_left)} transactions left, scope unchanged, after "
        f"release {again.status_code} and {removed.status_code}"
    )


def test_long_read_ends_at_its_timeout(graph: Graph) -> None:
    """A read runs unblocked at READ COMMITTED, so it needs a long statement: `kgs cypher`'s
    read-only path (Graph.read_text) with a count over two billion rows."""
    short = Graph(graph.driver, graph.registry, database=graph.database,
                  query_timeout_s=READ_TIMEOUT_S)  # fmt: skip
    bound_s = READ_TIMEOUT_S + NEO4J_TIMEOUT_CHECK_S + HANG_MARGIN_S
    started = time.perf_counter()
    with pytest.raises(Neo4jError) as raised:
        short.read_text(LONG_READ, {"n": LONG_READ_ROWS})
    elapsed = time.perf_counter() - started
    assert "TransactionTimedOut" in (raised.value.code or ""), raised.value.code
    assert elapsed <= bound_s, elapsed
    assert problem_for(raised.value).status_code == 504
    # A registry read on the same Graph still runs: the timeout ended one transaction only.
    assert short.read("admin/ping")
    print(
        f"\ntransaction timeout: a read of {LONG_READ_ROWS:,} rows ended after {elapsed:.1f} s "
        f"with {raised.value.code} -> 504 (timeout {READ_TIMEOUT_S:g} s)"
    )
