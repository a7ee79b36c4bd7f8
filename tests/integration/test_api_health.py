"""/health, /ready, /metrics and /schema, and the service through a Neo4j outage: 503 while the
database is unreachable, and back by itself when it returns, without a restart.

The outage is made without touching the shared Neo4j: a second app reaches it through a small
TCP relay that the test opens and closes."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from litestar.testing import TestClient

from ingest.embeddings import SentenceTransformerEmbedder
from service.api import create_app
from service.api.state import AppResources
from service.db import Graph
from service.db.selection import Connection
from service.settings import ApiSettings, Settings

RELAY_BUFFER_BYTES = 65_536


def test_health_ready_schema_metrics(
    settings: Settings, graph: Graph, embedder: SentenceTransformerEmbedder
) -> None:
    resources = AppResources(settings, graph=graph, embedder=embedder)
    with TestClient(create_app(settings, resources)) as client:
        assert client.get("/health").json() == {"status": "ok"}
        ready = client.get("/ready")
        assert ready.status_code == 200, ready.text
        body = ready.json()
        assert body["status"] == "ready" and body["model"] == "loaded"
        assert body["neo4j"].startswith("Neo4j/5.")
        assert set(body["indexes"].values()) == {"ONLINE"}
        schema = client.get("/schema/openapi.json").json()
        assert schema["info"]["title"].startswith("kgs")
        assert {
            "/v1/query",
            "/v1/query/stream",
            "/v1/documents",
            "/v1/documents/{document_id}",
            "/v1/knowledge-points",
            "/v1/knowledge-points/{point_id}",
            "/v1/traces/{trace_id}",
            "/health",
            "/ready",
            "/metrics",
        } <= set(schema["paths"])
        assert "apiKey" in schema["components"]["securitySchemes"]
        assert client.get("/schema/swagger").status_code == 200
        metrics = client.get("/metrics")
        assert metrics.headers["content-type"].startswith("text/plain")
        assert "kgs_requests_total" in metrics.text


def test_ready_is_503_without_the_model(settings: Settings, graph: Graph) -> None:
    resources = AppResources(settings, graph=graph)
    resources.open = lambda: None  # type: ignore[method-assign]  # no model load in this test
    with TestClient(create_app(settings, resources)) as client:
        response = client.get("/ready")
        assert response.status_code == 503
        assert response.headers["content-type"].startswith("application/problem+json")
        assert "embedding model" in response.json()["detail"]


class Relay:
    """A TCP relay on a free loopback port to the real Neo4j; `stop` cuts every connection."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        self.port = probe.getsockname()[1]
        probe.close()
        self._listener: socket.socket | None = None
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()

    def start(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen()
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def stop(self) -> None:
        with self._lock:
            for sock in [*self._sockets, *([self._listener] if self._listener else [])]:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()
            self._sockets.clear()
            self._listener = None

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
                upstream = socket.create_connection(("127.0.0.1", self.target_port))
            except OSError:
                return
            with self._lock:
                self._sockets += [client, upstream]
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(RELAY_BUFFER_BYTES):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)


@pytest.fixture
def relay(connection: Connection) -> Iterator[Relay]:
    port = int(connection.uri.rsplit(":", 1)[1])
    relay = Relay(port)
    yield relay
    relay.stop()


def test_neo4j_outage_is_503_and_recovers_without_restart(
    settings: Settings, connection: Connection, embedder: SentenceTransformerEmbedder,
    relay: Relay,
) -> None:  # fmt: skip
    outage_settings = msgspec.structs.replace(
        settings,
        neo4j=msgspec.structs.replace(
            settings.neo4j, uri=f"bolt://127.0.0.1:{relay.port}", user=connection.user,
            password=connection.password, database=connection.database,
            connection_timeout_s=2.0,
        ),
        api=ApiSettings(dev_mode=True, neo4j_retry_s=0.2, schema_wait_s=5.0),
    )  # fmt: skip
    # Owned graph (opened by the app, through the relay), borrowed model.
    resources = AppResources(outage_settings, embedder=embedder)
    question = {"query": "what is water glass?", "scope": "api-outage-empty"}
    with TestClient(create_app(outage_settings, resources)) as client:
        # The database is unreachable from the start: the service still starts and says so.
        _assert_unavailable(client, question)
        relay.start()
        _assert_available(client, question)
        relay.stop()  # an outage while connections are pooled
        _assert_unavailable(client, question)
        relay.start()
        _assert_available(client, question)


def _assert_unavailable(client: TestClient[Any], question: dict[str, str]) -> None:
    assert client.get("/health").status_code == 200
    for response in (client.get("/ready"), client.get("/v1/documents?limit=1"),
                     client.post("/v1/query", json=question)):  # fmt: skip
        assert response.status_code == 503, response.text
        assert response.headers["content-type"].startswith("application/problem+json")
        assert "Neo4j" in response.json()["detail"]


def _assert_available(client: TestClient[Any], question: dict[str, str]) -> None:
    ready = client.get("/ready")
    assert ready.status_code == 200, ready.text
    assert client.get("/v1/documents?limit=1").status_code == 200
    answer = client.post("/v1/query", json=question)
    assert answer.status_code == 200, answer.text
    assert answer.json()["status"] == "abstained"  # an empty scope: nothing to answer from
