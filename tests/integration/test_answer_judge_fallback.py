"""The answer path with a configured provider: the judge's fallbacks never block an answer."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Iterator

import pytest

from ingest.embeddings import SentenceTransformerEmbedder
from ingest.pipeline import IngestOptions, ingest
from service.answer.llm import ChatClient
from service.db import Graph
from service.question.runner import answer_question
from service.settings import LlmSettings, Settings, project_root
from tests.fake_llm import Reply, fake_llm
from tests.integration.conftest import delete_scope

QUESTION = "what is overflow budget probe?"


@pytest.fixture(scope="module")
def overflow_scope(
    graph: Graph, settings: Settings, embedder: SentenceTransformerEmbedder,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[str]:  # fmt: skip
    scope = f"j{uuid.uuid4().hex[:6]}-contextoverflow"
    root = tmp_path_factory.mktemp("kb")
    shutil.copytree(project_root() / "knowledge_base" / "contextoverflow", root / scope)
    ingest(graph, embedder, root, IngestOptions(), settings.ingest)
    yield scope
    delete_scope(graph, scope)


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (Reply(content="{this is not json"), "llm_judge_failed:malformed_json"),
        (Reply(delay_s=1.5, content="{}"), "llm_judge_failed:timeout"),
    ],
)
def test_judge_failure_falls_back_and_recovery_stays_bounded(
    graph: Graph, embedder: SentenceTransformerEmbedder, overflow_scope: str,
    reply: Reply, reason: str,
) -> None:  # fmt: skip
    with fake_llm([reply]) as (url, server):
        client = ChatClient(LlmSettings(base_url=url, model="fake", timeout_s=0.5))
        response = answer_question(graph, embedder, QUESTION, scope=overflow_scope,
                                   depth="deep", llm=client)  # fmt: skip
        assert len(server.requests) == 1  # called once: no retry, no second judge
    trace = response["trace"]
    assert response["status"] != "abstained" and response["answer"]
    assert reason in trace["ragRecovery"]["beforeReasons"]
    assert trace["ragRecovery"]["passes"] <= 1
    assert trace["ragSufficiencyReview"]["judge"]["failure"] == reason
    assert "generation" in {c["stage"] for c in trace["ragFailureClassifications"]}
    assert "llm_judge" not in response["answer"]


def test_no_provider_is_deterministic_and_grounded(
    graph: Graph, embedder: SentenceTransformerEmbedder, overflow_scope: str
) -> None:
    first, second = (
        answer_question(graph, embedder, QUESTION, scope=overflow_scope, llm=False)
        for _ in range(2)
    )
    assert first["answer"] == second["answer"] and first["status"] != "abstained"
    assert first["trace"]["ragSufficiencyReview"]["judge"] is None
    decisions = {d["status"] for d in first["trace"]["ragContextPack"]["sourceDecisions"]}
    assert "fragment_dropped" in decisions
    assert first["citations"]
    for citation in first["citations"]:  # every quote is the source between its offsets
        name = citation["path"].split("/", 1)[1]
        source = (project_root() / "knowledge_base" / "contextoverflow" / name).read_text()
        assert source[citation["startOffset"] : citation["endOffset"]] == citation["quote"]
    for claim in first["trace"]["answerClaimCitations"]:
        assert claim["citationIds"] and claim["status"] in ("supported", "weak")
