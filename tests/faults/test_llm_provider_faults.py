"""A slow LLM provider and providers answering garbage, through the service (the Litestar app on
the shared test Neo4j): every answer still arrives within the configured LLM timeout plus a
named margin, equals the answer given with no provider configured (status, text, citations),
names the failure in its trace, and is the same when asked again.

The provider is the fake OpenAI-compatible server of tests/fake_llm.py, configured the way an
operator configures one (KGS_LLM_* in the environment, read once by the answer path)."""

from __future__ import annotations

import json
import shutil
import time
import uuid
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from litestar.testing import TestClient

from ingest.embeddings import SentenceTransformerEmbedder
from ingest.pipeline import IngestOptions, ingest
from service.answer.llm import ChatClient
from service.api import create_app
from service.api.state import AppResources
from service.db import Graph
from service.question.runner import default_llm
from service.settings import ApiSettings, Settings, project_root
from tests.fake_llm import FakeLlm, Reply, fake_llm, verdict
from tests.integration.conftest import delete_scope

KB = "contextoverflow"
# A deep question: the judge is consulted whenever direct support was found.
QUESTION = {"query": "what is overflow budget probe?", "depth": "deep"}
LLM_TIMEOUT_S = 0.5  # KGS_LLM_TIMEOUT_S
SLOW_PROVIDER_S = 3.0  # the slow fake's delay, well past the timeout
# The judge's own time: the client's timeout plus thread scheduling on 2 busy cores.
JUDGE_MARGIN_S = 1.0
# A whole answer: the pipeline's own work (retrieval, embedding, Neo4j reads) on 2 shared cores.
# A hang check, not a performance target: a provider that is waited for past its timeout would
# add SLOW_PROVIDER_S per try, which the judge bound above catches on its own.
ANSWER_MARGIN_S = 15.0
COMPARED = ("status", "answer", "citations")  # the answer a client sees

CASES: dict[str, tuple[Reply, str]] = {  # name -> (provider reply, reason in the trace)
    "slow": (Reply(delay_s=SLOW_PROVIDER_S, content="{}"), "timeout"),
    "non-JSON body": (Reply(raw="<html><body>502 Bad Gateway</body></html>"), "bad_response"),
    "JSON body of the wrong shape": (Reply(raw='{"result": "sufficient"}'), "bad_response"),
    "non-JSON verdict": (Reply(content="Sure! The evidence is sufficient."), "malformed_json"),
    "verdict of the wrong shape": (Reply(content='{"verdict": "yes"}'), "schema_violation"),
    "HTTP 500": (Reply(status=500, raw='{"error": "internal"}'), "http_500"),
    "closed mid-body": (
        msgspec.structs.replace(verdict("sufficient", ["x"]), truncate_at_bytes=40),
        "connection",
    ),
}
REPEATED = ("slow", "non-JSON body")  # asked a second time: the same answer


@pytest.fixture(scope="module")
def kb_scope(
    graph: Graph, settings: Settings, embedder: SentenceTransformerEmbedder,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[str]:  # fmt: skip
    scope = f"llm{uuid.uuid4().hex[:6]}-{KB}"
    root = tmp_path_factory.mktemp("kb")
    shutil.copytree(project_root() / "knowledge_base" / KB, root / scope)
    ingest(graph, embedder, root, IngestOptions(), settings.ingest)
    yield scope
    delete_scope(graph, scope)


@pytest.fixture(scope="module")
def provider() -> Iterator[tuple[str, FakeLlm]]:
    with fake_llm([Reply(content="{}")]) as (url, state):
        yield url, state


@pytest.fixture(scope="module")
def client(
    settings: Settings, graph: Graph, embedder: SentenceTransformerEmbedder
) -> Iterator[TestClient[Any]]:
    app_settings = msgspec.structs.replace(settings, api=ApiSettings(dev_mode=True))
    resources = AppResources(app_settings, graph=graph, embedder=embedder)
    with TestClient(create_app(app_settings, resources), timeout=60) as test_client:
        yield test_client


@pytest.fixture
def configure(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """configure(url): the provider the answer path reads from KGS_LLM_* (None: no provider)."""

    def configure(url: str | None) -> None:
        _forget_provider()
        for name in ("KGS_LLM_BASE_URL", "KGS_LLM_API_KEY", "KGS_LLM_RESPONSE_FORMAT"):
            monkeypatch.delenv(name, raising=False)
        if url is not None:
            monkeypatch.setenv("KGS_LLM_BASE_URL", url)
            monkeypatch.setenv("KGS_LLM_MODEL", "fake")
            monkeypatch.setenv("KGS_LLM_TIMEOUT_S", str(LLM_TIMEOUT_S))

    yield configure
    _forget_provider()  # the next test reads its own environment


def _forget_provider() -> None:
    if default_llm.cache_info().currsize and isinstance(current := default_llm(), ChatClient):
        current.close()
    default_llm.cache_clear()


def _ask(client: TestClient[Any], scope: str) -> tuple[dict[str, Any], float]:
    started = time.monotonic()
    response = client.post("/v1/query", json={**QUESTION, "scope": scope})
    elapsed = time.monotonic() - started
    assert response.status_code == 200, response.text
    return response.json(), elapsed


def _visible(body: dict[str, Any]) -> dict[str, Any]:
    return {field: body[field] for field in COMPARED}


def _judge(body: dict[str, Any]) -> dict[str, Any]:
    judge = body["trace"]["ragSufficiencyReview"]["judge"]
    assert judge is not None, "the judge was not consulted"
    return dict(judge)


def _stream(client: TestClient[Any], scope: str) -> tuple[list[tuple[str, Any]], float]:
    started = time.monotonic()
    response = client.post("/v1/query/stream", json={**QUESTION, "scope": scope})
    elapsed = time.monotonic() - started
    assert response.status_code == 200, response.text
    events = []
    for block in response.text.replace("\r\n", "\n").split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if "event" in fields:
            events.append((fields["event"], json.loads(fields.get("data", "null"))))
    return events, elapsed


def test_slow_and_garbage_providers_answer_in_bound_like_no_provider(
    client: TestClient[Any], kb_scope: str, provider: tuple[str, FakeLlm], configure: Any
) -> None:
    url, fake = provider
    configure(None)
    reference, _ = _ask(client, kb_scope)
    assert reference["status"] != "abstained" and reference["citations"]
    assert reference["trace"]["ragSufficiencyReview"]["judge"] is None

    configure(url)
    seconds: list[float] = []
    differing: list[str] = []
    runs = [*CASES, *REPEATED]
    for name in runs:
        reply, reason = CASES[name]
        fake.replies = [reply]
        calls = len(fake.requests)
        body, elapsed = _ask(client, kb_scope)
        seconds.append(elapsed)
        assert len(fake.requests) == calls + 1, f"{name}: the provider was called once, no retry"
        judge = _judge(body)
        failure = f"llm_judge_failed:{reason}"
        assert judge["failure"] == failure, (name, judge)
        assert failure in body["trace"]["ragRecovery"]["beforeReasons"], name
        assert judge["elapsedMs"] <= (LLM_TIMEOUT_S + JUDGE_MARGIN_S) * 1000, (name, judge)
        assert elapsed <= LLM_TIMEOUT_S + ANSWER_MARGIN_S, (name, elapsed)
        if _visible(body) != _visible(reference):
            differing.append(name)

    # The control: a working provider's verdict does reach the answer, so "identical" above
    # means the failures were ignored, not that the judge never mattered.
    fake.replies = [verdict("insufficient", [], reason="the evidence does not say")]
    control, _ = _ask(client, kb_scope)
    assert _judge(control)["ok"] and _visible(control) != _visible(reference)

    # The streaming route with the slow provider: the final event is the same answer.
    fake.replies = [CASES["slow"][0]]
    events, elapsed = _stream(client, kb_scope)
    seconds.append(elapsed)
    assert events[0][0] == "started" and events[-1][0] == "answer", [e[0] for e in events]
    streamed = events[-1][1]
    assert _judge(streamed)["failure"] == "llm_judge_failed:timeout"
    assert elapsed <= LLM_TIMEOUT_S + ANSWER_MARGIN_S, elapsed
    if _visible(streamed) != _visible(reference):
        differing.append("slow (stream)")

    print(
        f"\nllm provider: {len(runs)} faulty answers ({len(CASES)} cases, {len(REPEATED)} repeated)"
        f" + 1 streamed, max {max(seconds):.2f} s per answer (LLM timeout {LLM_TIMEOUT_S} s,"
        f" bound {LLM_TIMEOUT_S + ANSWER_MARGIN_S:.1f} s), all identical to the no-LLM answer:"
        f" {'yes' if not differing else 'no: ' + ', '.join(differing)}"
    )
    assert not differing, differing
