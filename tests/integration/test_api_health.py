"""/health and /ready of the REST API against the real database."""

from litestar.testing import TestClient

from service.api import create_app
from service.api.state import AppResources
from service.db import Graph
from service.settings import Settings


class _Preopened(AppResources):
    """Uses the session's graph instead of opening (and closing) a second connection."""

    def __init__(self, settings: Settings, graph: Graph | None) -> None:
        super().__init__(settings)
        self._graph = graph

    def open(self) -> None:
        self.graph = self._graph

    def close(self) -> None:
        self.graph = None


def test_health_and_ready(settings: Settings, graph: Graph) -> None:
    with TestClient(create_app(settings, _Preopened(settings, graph))) as client:
        assert client.get("/health").json() == {"status": "ok"}
        ready = client.get("/ready")
        assert ready.status_code == 200, ready.text
        body = ready.json()
        assert body["status"] == "ready"
        assert body["neo4j"].startswith("Neo4j/5.")
        assert set(body["indexes"].values()) == {"ONLINE"}
        assert client.get("/schema/openapi.json").json()["info"]["title"].startswith("kgs")


def test_ready_is_503_problem_json_without_database(settings: Settings) -> None:
    with TestClient(create_app(settings, _Preopened(settings, None))) as client:
        assert client.get("/health").status_code == 200
        response = client.get("/ready")
        assert response.status_code == 503
        assert response.headers["content-type"].startswith("application/problem+json")
        assert "Neo4j" in response.json()["detail"]
