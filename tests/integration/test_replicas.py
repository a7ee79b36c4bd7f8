"""Two `kgs serve` processes on one Neo4j, as two replicas behind a load balancer: an answer given
by one is read back (GET /v1/traces/{traceId}) from the other, and from the first after it is
restarted, since every answer is kept as a record in Neo4j (service/records/)."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from ingest.embeddings import SentenceTransformerEmbedder
from ingest.pipeline import IngestOptions, ingest
from service.db import Graph
from service.settings import Settings, project_root
from tests.integration.conftest import delete_scope

SERVICE_START_S = 180.0  # imports and the embedding model on 2 busy cores
RECORD_WAIT_S = 30.0  # the record is written in the background after the answer
CLIENT_TIMEOUT_S = 60.0
SOURCE_SCOPE = "waterglass"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Replica:
    def __init__(self, env: dict[str, str], log_dir: Path, name: str) -> None:
        self.env, self.log_dir, self.name = env, log_dir, name
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0

    def start(self) -> None:
        self.starts += 1
        log = self.log_dir / f"{self.name}-{self.starts}.log"
        command = [str(Path(sys.executable).parent / "kgs"), "serve", "--host", "127.0.0.1",
                   "--port", str(self.port)]  # fmt: skip
        with log.open("wb") as out:
            self.process = subprocess.Popen(command, env=self.env, stdout=out,
                                            stderr=subprocess.STDOUT)  # fmt: skip
        deadline = time.monotonic() + SERVICE_START_S
        while time.monotonic() < deadline:
            assert self.process.poll() is None, f"{self.name} exited: {log.read_text()[-2000:]}"
            try:
                if httpx.get(f"{self.url}/ready", timeout=5).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.5)
        raise AssertionError(f"{self.name} was not ready within {SERVICE_START_S} s")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()  # SIGTERM: a graceful stop, as a deployment does
            self.process.wait(timeout=60)
        self.process = None


@pytest.fixture(scope="module")
def replicas(
    cli_env: dict[str, str], settings: Settings, graph: Graph,
    embedder: SentenceTransformerEmbedder, tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Replica, Replica, str]]:  # fmt: skip
    scope = f"replicas-{int(time.time())}"
    root = tmp_path_factory.mktemp("replicas-kb")
    shutil.copytree(project_root() / "knowledge_base" / SOURCE_SCOPE, root / scope)
    report = ingest(graph, embedder, root, IngestOptions(), settings.ingest)
    assert report.added and report.embedding_failure is None
    env = {key: value for key, value in cli_env.items() if not key.startswith("KGS_LLM_")}
    env |= {"KGS_API_DEV_MODE": "on", "KGS_API_ANSWER_PROCESSES": "0"}  # threads: lighter
    logs = tmp_path_factory.mktemp("replica-logs")
    first, second = Replica(env, logs, "a"), Replica(env, logs, "b")
    try:
        first.start()
        second.start()
        yield first, second, scope
    finally:
        first.stop()
        second.stop()
        delete_scope(graph, scope)


def _trace(replica: Replica, trace_id: str) -> httpx.Response:
    """The trace as the replica serves it, waiting for the background record write."""
    deadline = time.monotonic() + RECORD_WAIT_S
    while True:
        response = httpx.get(f"{replica.url}/v1/traces/{trace_id}", timeout=CLIENT_TIMEOUT_S)
        if response.status_code != 404 or time.monotonic() > deadline:
            return response
        time.sleep(0.2)


def test_a_trace_made_on_one_replica_is_read_on_the_other_and_after_a_restart(
    replicas: tuple[Replica, Replica, str],
) -> None:
    first, second, scope = replicas
    asked = httpx.post(f"{first.url}/v1/query", json={"query": "what is water glass?",
                       "scope": scope}, timeout=CLIENT_TIMEOUT_S)  # fmt: skip
    assert asked.status_code == 200, asked.text
    body: dict[str, Any] = asked.json()
    served = _trace(second, body["traceId"])
    assert served.status_code == 200, served.text
    assert served.json()["trace"] == body["trace"]
    assert served.json()["query"] == "what is water glass?"
    first.stop()
    first.start()  # a new process: its in-memory traces are empty
    again = _trace(first, body["traceId"])
    assert again.status_code == 200, again.text
    assert again.json()["trace"] == body["trace"]
