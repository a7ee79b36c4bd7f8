"""Graph.read runs auto-commit reads, which the driver does not retry: its own retry loop must
retry what is retryable, for its budget, and nothing else. The session here is a stand-in that
fails on cue (the real server's outage behaviour is tests/faults/test_service_outage.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from neo4j.exceptions import ClientError, ServiceUnavailable

from service.db import graph as graph_module
from service.db.cypher_registry import CypherRegistry
from service.db.graph import Graph


class _Session:
    def __init__(self, driver: _Driver) -> None:
        self.driver = driver

    def __enter__(self) -> _Session:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def run(self, query: Any, params: dict[str, Any]) -> Iterator[Any]:
        self.driver.calls += 1
        if self.driver.failures:
            raise self.driver.failures.pop(0)
        return iter(())


class _Driver:
    def __init__(self, failures: list[Exception]) -> None:
        self.failures = failures
        self.calls = 0

    def session(self, **config: Any) -> _Session:
        assert config["default_access_mode"] == "READ"
        return _Session(self)


def _graph(tmp_path: Path, failures: list[Exception], retry_s: float) -> tuple[Graph, _Driver]:
    (tmp_path / "probe").mkdir()
    (tmp_path / "probe" / "one.cypher").write_text("// mode: read\nRETURN 1 AS one\n")
    driver = _Driver(failures)
    graph = Graph(
        driver,  # type: ignore[arg-type]
        CypherRegistry.load(tmp_path),
        database="neo4j",
        query_timeout_s=5,
        read_retry_s=retry_s,
    )
    return graph, driver


@pytest.fixture
def pauses(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    slept: list[float] = []
    monkeypatch.setattr(graph_module.time, "sleep", slept.append)
    return slept


def test_retryable_failures_are_retried_with_growing_pauses(
    tmp_path: Path, pauses: list[float]
) -> None:
    graph, driver = _graph(tmp_path, [ServiceUnavailable("down"), ServiceUnavailable("down")], 30)
    assert graph.read("probe/one") == []
    assert driver.calls == 3
    assert len(pauses) == 2 and 0.8 <= pauses[0] <= 1.2 and 1.6 <= pauses[1] <= 2.4
    assert [c.statement for c in graph.calls] == ["probe/one"]  # only the run that answered


def test_a_client_error_is_not_retried(tmp_path: Path, pauses: list[float]) -> None:
    bad = ClientError("bad")
    graph, driver = _graph(tmp_path, [bad], 30)
    with pytest.raises(ClientError):
        graph.read("probe/one")
    assert driver.calls == 1 and pauses == []


def test_retries_stop_within_the_budget(tmp_path: Path, pauses: list[float]) -> None:
    graph, driver = _graph(tmp_path, [ServiceUnavailable("down")] * 10, 0.5)
    with pytest.raises(ServiceUnavailable):
        graph.read("probe/one")
    assert driver.calls == 1 and pauses == []  # the first pause (about 1 s) would overrun 0.5 s
