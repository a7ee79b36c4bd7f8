"""The LLM client and the bounded judge against the fake OpenAI-compatible server."""

from __future__ import annotations

import json

import pytest

from service.answer.judge import apply_verdict, judge
from service.answer.llm import ChatClient, LlmHttpError, LlmTimeout, client_from_settings
from service.settings import AnswerSettings, LlmSettings
from tests.fake_llm import Reply, fake_llm, verdict
from tests.unit.answer_fixtures import borderline_review, pack_of, plan_for


def _client(url: str, timeout_s: float = 2.0) -> ChatClient:
    return ChatClient(LlmSettings(base_url=url, model="fake", timeout_s=timeout_s))


def test_no_base_url_means_no_client() -> None:
    assert client_from_settings(LlmSettings()) is None


def test_valid_verdict_settles_a_borderline_review() -> None:
    pack = pack_of()
    ids = [f.id for f in pack.fragments]
    with fake_llm([verdict("sufficient", ids[:1])]) as (url, server):
        outcome = judge(_client(url), plan_for("what is waterglass?"), pack,
                        borderline_review(), AnswerSettings())  # fmt: skip
    assert outcome.ok and outcome.verdict is not None
    assert len(server.requests) == 1
    body = server.requests[0]
    assert body["response_format"]["type"] == "json_schema"
    user = json.loads(body["messages"][1]["content"])  # candidates travel as JSON data
    assert [c["id"] for c in user["candidates"]] == list(outcome.candidate_ids)
    reviewed = apply_verdict(borderline_review(), outcome, AnswerSettings())
    assert (reviewed.status, reviewed.degradation) == ("sufficient", "none")


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (Reply(content="{not json"), "llm_judge_failed:malformed_json"),
        (Reply(content='{"status": "great"}'), "llm_judge_failed:schema_violation"),
        (Reply(status=500, raw='{"error": "boom"}'), "llm_judge_failed:http_500"),
        (Reply(raw='{"unexpected": true}'), "llm_judge_failed:bad_response"),
        (verdict("sufficient", ["f_not_a_candidate"]), "llm_judge_failed:unknown_citation_ids"),
        (Reply(delay_s=1.5, content="{}"), "llm_judge_failed:timeout"),
    ],
)
def test_failures_fall_back_to_the_deterministic_review(reply: Reply, reason: str) -> None:
    review = borderline_review()
    with fake_llm([reply]) as (url, server):
        outcome = judge(_client(url, timeout_s=0.5), plan_for("what is waterglass?"), pack_of(),
                        review, AnswerSettings())  # fmt: skip
        assert len(server.requests) == 1  # zero retries
    assert not outcome.ok and outcome.failure == reason
    after = apply_verdict(review, outcome, AnswerSettings())
    assert (after.status, after.degradation) == (review.status, review.degradation)
    assert reason in after.reasons


def test_client_raises_typed_errors() -> None:
    with (
        fake_llm([Reply(status=503, raw="down")]) as (url, _),
        pytest.raises(LlmHttpError) as error,
    ):
        _client(url).complete("s", "u")
    assert error.value.reason == "http_503"
    with fake_llm([Reply(delay_s=1.0, content="x")]) as (url, _), pytest.raises(LlmTimeout):
        _client(url, timeout_s=0.2).complete("s", "u")


def test_judge_never_clears_a_conflict() -> None:
    import msgspec

    review = msgspec.structs.replace(borderline_review(), degradation="conflict")
    pack = pack_of()
    with fake_llm([verdict("sufficient", [pack.fragments[0].id])]) as (url, _):
        outcome = judge(_client(url), plan_for("what is waterglass?"), pack, review,
                        AnswerSettings())  # fmt: skip
    assert apply_verdict(review, outcome, AnswerSettings()).degradation == "conflict"
