"""kill -9 of Neo4j while the real service (`kgs serve`, its own process) is under query load:
every request gets 200 or a 503 problem naming Neo4j, never a 500 and never a hang past the
configured retry and connection timeouts; /health stays 200 while /ready is 503; once Neo4j is
back the same service process answers again within RECOVERY_BOUND_S, without a restart, and
GET /v1/ops/failures counts every 503 it gave (the failure records held through the outage).

A private Neo4j in a temporary home on its own ports (17689/17476), like
test_kill_during_ingest.py, so the shared test server is never disturbed. Needs Java and Maven."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest

from ingest.embeddings import SentenceTransformerEmbedder
from ingest.pipeline import IngestOptions, ingest
from service.db import open_graph
from service.db.local_server import LocalNeo4jServer
from service.settings import Settings, project_root
from tests.faults.support import kill_server, private_server

pytestmark = pytest.mark.local_server

BOLT, HTTP = 17689, 17476
SCOPE = "waterglass"
QUESTIONS = (
    "what is water glass?",
    "how is water glass made?",
    "what is silica gel?",
    "how do you wash a cup?",
)
CLIENTS = 8  # threads posting /v1/query in a loop
# The service's Neo4j limits for this test: short, so that an outage turns into 503 quickly.
RETRY_S = 1.0  # KGS_API_NEO4J_RETRY_S: the driver's max_transaction_retry_time
CONNECTION_TIMEOUT_S = 1.0  # KGS_NEO4J_CONNECTION_TIMEOUT_S: connect and pool acquisition
MAX_CONCURRENT_ANSWERS = 4  # KGS_API_MAX_CONCURRENT_ANSWERS (the default): the rest queue
# The driver's retry loop may start one last back-off just before RETRY_S runs out: its delays
# are 1 s then 2 s, each with 20 % jitter, so the last sleep can be 2.4 s.
DRIVER_LAST_BACKOFF_S = 2.4
HANG_MARGIN_S = 8.0  # an answer's CPU work on 2 busy shared cores (embedding, ranking), HTTP
# A request may wait for one round of answers ahead of it (CLIENTS / MAX_CONCURRENT_ANSWERS = 2).
QUEUE_ROUNDS = -(-CLIENTS // MAX_CONCURRENT_ANSWERS)
HANG_BOUND_S = (
    QUEUE_ROUNDS * (RETRY_S + DRIVER_LAST_BACKOFF_S + CONNECTION_TIMEOUT_S) + HANG_MARGIN_S
)
OK_BEFORE_KILL = 8  # answers served under load before the kill
LOAD_BEFORE_KILL_MAX_S = 120.0  # bound on waiting for them (a busy machine answers slowly)
LOAD_DURING_OUTAGE_S = 5.0
RECOVERY_BOUND_S = 30.0  # from Bolt answering again to the first 200 on /v1/query
RECOVERY_POLL_S = 0.2
FAILURES_BOUND_S = 30.0  # from the first answer after the outage to its failure records read
SERVICE_START_S = 180.0  # imports, the embedding model, the schema check
CLIENT_TIMEOUT_S = 60.0  # far above HANG_BOUND_S: a slow request is measured, not cut off
SETUP_S: dict[str, float] = {}  # seconds of each setup step, for the figure line


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalNeo4jServer]:
    instance = private_server(tmp_path_factory, "kgs-outage", bolt_port=BOLT, http_port=HTTP)
    started = time.monotonic()
    instance.start()
    SETUP_S["neo4j start"] = time.monotonic() - started
    yield instance
    if (pid := instance.status().pid) is not None:  # a throwaway database: no clean shutdown
        os.kill(pid, signal.SIGKILL)


def _env(server: LocalNeo4jServer) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("KGS_LLM_")}
    return {
        **env,
        "NEO4J_URI": server.bolt_uri,
        "NEO4J_USER": "neo4j",
        "NEO4J_PASSWORD": server.password(),
        "NEO4J_DATABASE": "neo4j",
        "KGS_API_DEV_MODE": "on",
        "KGS_API_NEO4J_RETRY_S": str(RETRY_S),
        "KGS_NEO4J_CONNECTION_TIMEOUT_S": str(CONNECTION_TIMEOUT_S),
        "KGS_API_MAX_CONCURRENT_ANSWERS": str(MAX_CONCURRENT_ANSWERS),
    }


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def service(
    server: LocalNeo4jServer, embedder: SentenceTransformerEmbedder,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:  # fmt: skip
    """`kgs serve` on a free port, loading its model while the knowledge base is ingested here
    (embeddings on, with the session's model)."""
    env = _env(server)
    root = tmp_path_factory.mktemp("outage-kb")
    shutil.copytree(project_root() / "knowledge_base" / SCOPE, root / SCOPE)
    settings = Settings.from_env(env)
    graph, _, close = open_graph(settings)  # the schema exists before the service looks for it
    port = _free_port()
    log = (tmp_path_factory.mktemp("outage-log") / "serve.log").open("wb")
    command = [str(Path(sys.executable).parent / "kgs"), "serve", "--host", "127.0.0.1",
               "--port", str(port)]  # fmt: skip
    process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    started = time.monotonic()
    try:
        try:
            report = ingest(graph, embedder, root, IngestOptions(), settings.ingest)
            assert report.added and report.embedding_failure is None
        finally:
            close()
        SETUP_S["ingest"] = time.monotonic() - started
        deadline = time.monotonic() + SERVICE_START_S
        while time.monotonic() < deadline:
            assert process.poll() is None, f"kgs serve exited: {Path(log.name).read_text()[-2000:]}"
            try:
                if httpx.get(f"{url}/ready", timeout=5).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            time.sleep(0.5)
        else:
            raise AssertionError(f"the service was not ready within {SERVICE_START_S} s")
        SETUP_S["ingest to service ready"] = time.monotonic() - started
        yield url, process
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=30)
        log.close()


class _Outcome(msgspec.Struct, frozen=True, kw_only=True):
    started: float  # monotonic
    seconds: float
    status: int  # 0: the client gave up (transport error)
    content_type: str
    detail: str


class _Load:
    """CLIENTS threads posting questions until stopped; every outcome is kept."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.outcomes: list[_Outcome] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads = [
            threading.Thread(target=self._client, args=(n,), daemon=True) for n in range(CLIENTS)
        ]

    def __enter__(self) -> _Load:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=CLIENT_TIMEOUT_S + 10)

    def _client(self, number: int) -> None:
        with httpx.Client(base_url=self.url, timeout=CLIENT_TIMEOUT_S) as client:
            turn = number
            while not self._stop.is_set():
                question = {"query": QUESTIONS[turn % len(QUESTIONS)], "scope": SCOPE}
                turn += 1
                started = time.monotonic()
                try:
                    response = client.post("/v1/query", params={"trace": "false"}, json=question)
                    status = response.status_code
                    kind = response.headers.get("content-type", "")
                    detail = "" if status == 200 else str(response.json().get("detail", ""))
                except httpx.TransportError as error:
                    status, kind, detail = 0, "", repr(error)
                outcome = _Outcome(started=started, seconds=time.monotonic() - started,
                                   status=status, content_type=kind, detail=detail)  # fmt: skip
                with self._lock:
                    self.outcomes.append(outcome)

    def wait_for_answers(self, count: int, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            with self._lock:
                if sum(o.status == 200 for o in self.outcomes) >= count:
                    return
                assert all(o.status == 200 for o in self.outcomes), self.outcomes[:5]
            time.sleep(0.1)
        raise AssertionError(f"fewer than {count} answers within {timeout_s} s before the kill")


def test_neo4j_killed_under_load_gives_503_then_recovers_without_restart(
    server: LocalNeo4jServer, service: tuple[str, subprocess.Popen[bytes]]
) -> None:
    url, process = service
    figures: dict[str, Any] = {}
    with httpx.Client(base_url=url, timeout=CLIENT_TIMEOUT_S) as probe:
        started = time.monotonic()  # the first answer on a fresh server plans every statement
        warm = probe.post("/v1/query", json={"query": QUESTIONS[0], "scope": SCOPE})
        assert warm.status_code == 200 and warm.json()["status"] != "abstained", warm.text
        SETUP_S["first answer"] = time.monotonic() - started
    with httpx.Client(base_url=url, timeout=CLIENT_TIMEOUT_S) as probe, _Load(url) as load:
        load.wait_for_answers(OK_BEFORE_KILL, LOAD_BEFORE_KILL_MAX_S)
        kill_sent = time.monotonic()
        kill_server(server)
        killed_at = time.monotonic()  # the server process is gone
        time.sleep(LOAD_DURING_OUTAGE_S / 2)
        health = probe.get("/health")
        ready = probe.get("/ready")
        time.sleep(LOAD_DURING_OUTAGE_S / 2)
        outage_end = time.monotonic()
    before = [o for o in load.outcomes if o.started + o.seconds < kill_sent]
    figures["requests"] = len(load.outcomes)
    figures["ok_before"] = sum(o.status == 200 for o in before)
    figures["unavailable"] = sum(o.status == 503 for o in load.outcomes)

    assert health.status_code == 200
    assert ready.status_code == 503, ready.text
    assert ready.headers["content-type"].startswith("application/problem+json")
    assert "Neo4j" in ready.json()["detail"]
    assert figures["ok_before"] > 0  # the load was answered before the kill
    odd = [o for o in load.outcomes if o.status not in (200, 503)]
    assert not odd, odd[:5]  # no 500, no 504, no client-side give-up
    for outcome in load.outcomes:
        if outcome.status == 503:
            assert outcome.content_type.startswith("application/problem+json"), outcome
            assert "Neo4j" in outcome.detail, outcome
    # The hang check: how long each request ran once the kill was sent (or since it started,
    # if later). Answers completed before the kill are ordinary latency, not part of it.
    exposed = [o for o in load.outcomes if o.started + o.seconds >= kill_sent]
    slowest = max(o.started + o.seconds - max(o.started, kill_sent) for o in exposed)
    assert slowest <= HANG_BOUND_S, sorted(exposed, key=lambda o: -o.seconds)[:3]
    # The outage was seen: every request that started once the server was gone got 503.
    late = [o for o in load.outcomes if o.started >= killed_at]
    assert late and all(o.status == 503 for o in late), late[:5]
    figures["max_latency_s"] = round(slowest, 2)
    figures["outage_s"] = round(outage_end - killed_at, 1)

    restart = time.monotonic()
    server.start()  # returns once Bolt answers
    bolt_back = time.monotonic()
    SETUP_S["neo4j restart"] = bolt_back - restart
    question = {"query": QUESTIONS[0], "scope": SCOPE}
    recovery: list[tuple[int, float]] = []  # (status, seconds) of each try
    with httpx.Client(base_url=url, timeout=CLIENT_TIMEOUT_S) as client:
        while True:
            started = time.monotonic()
            answer = client.post("/v1/query", json=question)
            recovery.append((answer.status_code, round(time.monotonic() - started, 2)))
            if answer.status_code == 200:
                break
            assert answer.status_code == 503, answer.text
            assert time.monotonic() - bolt_back <= RECOVERY_BOUND_S, answer.text
            time.sleep(RECOVERY_POLL_S)
        served_again = time.monotonic() - bolt_back
        assert served_again <= RECOVERY_BOUND_S, recovery
        stages = answer.json()["trace"]["timingsMs"]
        slowest_stage = max(stages, key=stages.get)
        assert answer.json()["status"] != "abstained"
        assert client.get("/ready").status_code == 200
        assert client.get("/health").status_code == 200
        # Every 503 left a failure record: held while Neo4j was away, written once it answered.
        expected = figures["unavailable"] + sum(status == 503 for status, _ in recovery)
        recorded, deadline = 0, time.monotonic() + FAILURES_BOUND_S
        while recorded < expected and time.monotonic() < deadline:
            failures = client.get("/v1/ops/failures", params={"scope": SCOPE}).json()
            recorded = sum(row["failures"] for row in failures["byStage"])
            time.sleep(RECOVERY_POLL_S)
        assert recorded == expected, (recorded, expected, failures)
        assert {row["errorType"] for row in failures["byStage"]} == {"neo4j-unavailable"}
    assert process.poll() is None  # the same service process throughout, never restarted
    print(
        f"\nservice outage: {figures['requests']} requests, {figures['ok_before']} ok before the"
        f" kill, {figures['unavailable']} 503, 0 other 5xx, max time past the kill"
        f" {figures['max_latency_s']} s (bound {HANG_BOUND_S:.1f} s), outage"
        f" {figures['outage_s']} s, served again {served_again:.1f} s after Neo4j answered"
        f" ({len(recovery) - 1} 503 first, the answer took {recovery[-1][1]} s, most in"
        f" {slowest_stage} {stages[slowest_stage] / 1000:.1f} s); seconds of "
        + ", ".join(f"{step} {seconds:.1f}" for step, seconds in SETUP_S.items())
    )
