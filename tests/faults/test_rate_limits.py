"""A client that bursts, one that keeps to the rate and one that guesses keys, against the real
service and Neo4j: the burst is refused past the limit, the polite client is always served, the
guesser is limited by address, and no refused question reaches the pipeline.

Prints `rate limit: ...` for bench/faults_report.py. The clock is injected, so the figures do
not depend on the machine's speed."""

from __future__ import annotations

from typing import Any

from litestar.testing import TestClient

from service.api import create_app
from service.api.state import AppResources
from service.db import Graph
from service.settings import Settings
from tests.integration.test_api_rate_limit import (
    LIMIT,
    SCOPE,
    UNKNOWN_TRACE,
    WINDOW_S,
    answers_total,
    install,
    key,
    rate_settings,
)

REQUESTS_PER_CLIENT = 8


def test_rate_limits_hold_per_key_and_per_address(settings: Settings, graph: Graph) -> None:
    test_settings = rate_settings(settings)
    app = create_app(test_settings, AppResources(test_settings, graph=graph))
    question = {"query": "Which rock is volcanic?", "scope": SCOPE}
    with TestClient(app) as client:
        clock = install(client)
        answers_before = answers_total()

        def ask(name: str) -> Any:
            return client.post("/v1/query", json=question, headers=key(name))

        burst = [ask("key-a").status_code for _ in range(REQUESTS_PER_CLIENT)]
        polite = []
        for _ in range(REQUESTS_PER_CLIENT):
            polite.append(ask("key-b").status_code)
            clock.advance(WINDOW_S / LIMIT)  # one request's worth of refill
        guesses = [client.get(UNKNOWN_TRACE, headers={"X-API-Key": f"guess-{n}"}).status_code
                   for n in range(REQUESTS_PER_CLIENT)]  # fmt: skip
        answers = answers_total() - answers_before

    refused_a = burst.count(429)
    served_b = polite.count(200)
    refused_guesses = guesses.count(429)
    print(
        f"rate limit: key A (burst) refused {refused_a}/{REQUESTS_PER_CLIENT} at limit {LIMIT} "
        f"per {WINDOW_S:g} s, key B (one per {WINDOW_S / LIMIT:g} s) "
        f"{served_b}/{REQUESTS_PER_CLIENT} served, key guesser refused "
        f"{refused_guesses}/{REQUESTS_PER_CLIENT} after {guesses.count(401)} 401s, "
        f"answers computed {answers:g} for {burst.count(200) + served_b} served questions"
    )
    assert burst == [200] * LIMIT + [429] * (REQUESTS_PER_CLIENT - LIMIT)
    assert polite == [200] * REQUESTS_PER_CLIENT
    assert guesses == [401] * LIMIT + [429] * (REQUESTS_PER_CLIENT - LIMIT)
    assert answers == LIMIT + REQUESTS_PER_CLIENT  # refusals never reached the pipeline
