"""Per-key rate limits on /v1 through Litestar's test client against the real Neo4j: 429 with
problem details and RateLimit headers, keys and addresses counted apart, refill over time (an
injected clock, no sleeping), operations routes never limited, refused requests never reach the
pipeline; plus the bucket arithmetic, bounded memory, thread safety and the settings."""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from litestar.connection import ASGIConnection
from litestar.testing import TestClient
from prometheus_client import REGISTRY

from service.api import create_app
from service.api.auth import Keyring, hash_key
from service.api.rate_limit import (
    RATE_LIMITER_STATE,
    RateLimiter,
    RateLimitPolicy,
    identify,
    take,
)
from service.api.state import AppResources
from service.db import Graph
from service.settings import ApiKey, ApiSettings, Settings, SettingsError
from tests.integration.conftest import delete_scope

SCOPE = f"rate-{uuid.uuid4().hex[:8]}"
KEYS = {"key-a": "rate-key-a", "key-b": "rate-key-b"}  # name -> key
LIMIT = 5
WINDOW_S = 10.0
UNKNOWN_TRACE = "/v1/traces/t_0123456789abcdef"  # a /v1 route that touches neither Neo4j nor model


class FakeClock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now_s = 1000.0

    def __call__(self) -> float:
        return self.now_s

    def advance(self, seconds: float) -> None:
        self.now_s += seconds


def rate_settings(settings: Settings, **api: Any) -> Settings:
    keys = tuple(ApiKey(name=n, sha256=hash_key(k), scopes=(SCOPE,)) for n, k in KEYS.items())
    # No embedding model: answers use lexical retrieval and the app starts in a moment.
    return msgspec.structs.replace(
        settings,
        embedding=msgspec.structs.replace(settings.embedding, enabled=False),
        api=ApiSettings(keys=keys, **api),
    )


def key(name: str | None) -> dict[str, str]:
    return {"X-API-Key": KEYS[name]} if name else {}


def install(client: TestClient[Any], requests: int = LIMIT, window_s: float = WINDOW_S,
            max_identities: int = 100) -> FakeClock:  # fmt: skip
    """A fresh limiter on the running app (the middleware reads it from app.state per request)."""
    clock = FakeClock()
    policy = RateLimitPolicy(requests=requests, window_s=window_s, max_identities=max_identities)
    client.app.state[RATE_LIMITER_STATE] = RateLimiter(policy, clock=clock)
    return clock


def sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def answers_total() -> float:
    return sum(
        s.value for m in REGISTRY.collect() if m.name == "kgs_answers"
        for s in m.samples if s.name == "kgs_answers_total"
    )  # fmt: skip


def assert_limited(response: Any, *, retry_after_s: int) -> dict[str, Any]:
    assert response.status_code == 429, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    assert response.headers["Retry-After"] == str(retry_after_s)
    assert response.headers["RateLimit-Limit"] == str(LIMIT)
    assert response.headers["RateLimit-Remaining"] == "0"
    assert response.headers["RateLimit-Policy"] == f"{LIMIT};w={int(WINDOW_S)}"
    body: dict[str, Any] = response.json()
    assert body["type"] == "about:blank" and body["title"] == "Too Many Requests"
    assert body["status"] == 429 and body["traceId"] == response.headers["X-Trace-Id"]
    assert f"{LIMIT} requests per {WINDOW_S:g} s" in body["detail"]
    assert f"retry in {retry_after_s} s" in body["detail"]
    return body


@pytest.fixture(scope="module")
def client(settings: Settings, graph: Graph) -> Iterator[TestClient[Any]]:
    test_settings = rate_settings(settings)
    app = create_app(test_settings, AppResources(test_settings, graph=graph))
    try:
        with TestClient(app) as test_client:
            yield test_client
    finally:
        delete_scope(graph, SCOPE)


def test_sixth_request_of_a_key_is_refused_while_another_key_is_served(
    client: TestClient[Any],
) -> None:
    install(client)
    for served in range(LIMIT):
        response = client.get(UNKNOWN_TRACE, headers=key("key-a"))
        assert response.status_code == 404, response.text  # served: the handler answered
        assert response.headers["RateLimit-Limit"] == str(LIMIT)
        assert response.headers["RateLimit-Remaining"] == str(LIMIT - served - 1)
        # 0.5 tokens per second: the bucket is full again 2 s per request taken.
        assert response.headers["RateLimit-Reset"] == str(2 * (served + 1))
        assert response.headers["RateLimit-Policy"] == "5;w=10"
        assert "Retry-After" not in response.headers
    body = assert_limited(client.get(UNKNOWN_TRACE, headers=key("key-a")), retry_after_s=2)
    assert "this API key" in body["detail"]

    other = client.get(UNKNOWN_TRACE, headers=key("key-b"))
    assert other.status_code == 404 and other.headers["RateLimit-Remaining"] == str(LIMIT - 1)


def test_a_key_is_served_again_as_its_bucket_refills(client: TestClient[Any]) -> None:
    clock = install(client)
    for _ in range(LIMIT):
        assert client.get(UNKNOWN_TRACE, headers=key("key-a")).status_code == 404
    assert_limited(client.get(UNKNOWN_TRACE, headers=key("key-a")), retry_after_s=2)

    clock.advance(1.0)  # half a token: still refused, one more second to wait
    assert_limited(client.get(UNKNOWN_TRACE, headers=key("key-a")), retry_after_s=1)
    clock.advance(1.0)  # one token
    response = client.get(UNKNOWN_TRACE, headers=key("key-a"))
    assert response.status_code == 404 and response.headers["RateLimit-Remaining"] == "0"
    assert_limited(client.get(UNKNOWN_TRACE, headers=key("key-a")), retry_after_s=2)

    clock.advance(WINDOW_S)  # a whole window: the full quota again
    for served in range(LIMIT):
        response = client.get(UNKNOWN_TRACE, headers=key("key-a"))
        assert response.status_code == 404
        assert response.headers["RateLimit-Remaining"] == str(LIMIT - served - 1)
    assert client.get(UNKNOWN_TRACE, headers=key("key-a")).status_code == 429


def test_requests_without_a_valid_key_are_limited_by_address(client: TestClient[Any]) -> None:
    install(client)
    before = sample("kgs_rate_limited_total", key="-")
    guesses = [key(None), {"X-API-Key": "guess-1"}, {"Authorization": "Bearer guess-2"}]
    statuses = [client.get(UNKNOWN_TRACE, headers=guesses[i % 3]).status_code
                for i in range(LIMIT + 3)]  # fmt: skip
    assert statuses == [401] * LIMIT + [429] * 3  # one address, whatever key it guesses
    body = assert_limited(client.get(UNKNOWN_TRACE), retry_after_s=2)
    assert "this client address" in body["detail"]
    assert sample("kgs_rate_limited_total", key="-") == before + 4
    # The address's debt is not the key's: a valid key from the same address is served.
    assert client.get(UNKNOWN_TRACE, headers=key("key-a")).status_code == 404


def test_identity_is_the_key_name_else_the_client_address() -> None:
    keys = tuple(ApiKey(name=n, sha256=hash_key(k), scopes=("*",)) for n, k in KEYS.items())
    keyring = Keyring(ApiSettings(keys=keys))
    dev_keyring = Keyring(ApiSettings(dev_mode=True))

    def connection(host: str | None, headers: dict[str, str]) -> ASGIConnection[Any, Any, Any, Any]:
        raw = [(k.lower().encode(), v.encode()) for k, v in headers.items()]
        client = (host, 4711) if host else None
        scope = {"type": "http", "path": "/v1/query", "client": client, "headers": raw}
        return ASGIConnection(scope)  # type: ignore[arg-type]

    a1 = identify(connection("10.0.0.1", key("key-a")), keyring)
    a2 = identify(connection("10.0.0.2", {"Authorization": f"Bearer {KEYS['key-a']}"}), keyring)
    assert a1 == a2 and a1.key == "key-a" and a1.bucket == "key:key-a"
    assert identify(connection("10.0.0.1", key("key-b")), keyring).bucket == "key:key-b"
    nobody = identify(connection("10.0.0.1", {}), keyring)
    guess = identify(connection("10.0.0.1", {"X-API-Key": "guess"}), keyring)
    assert nobody == guess and nobody.key is None and nobody.bucket == "address:10.0.0.1"
    assert identify(connection("10.0.0.2", {}), keyring).bucket == "address:10.0.0.2"
    assert identify(connection(None, {}), keyring).bucket == "address:unknown"
    # Development mode: everybody holds the same grant, so the address tells clients apart.
    assert identify(connection("10.0.0.3", {}), dev_keyring).bucket == "address:10.0.0.3"
    assert identify(connection("10.0.0.4", {}), dev_keyring).bucket == "address:10.0.0.4"


def test_operations_routes_are_never_limited(client: TestClient[Any]) -> None:
    install(client, requests=1)
    client.get(UNKNOWN_TRACE)
    assert client.get(UNKNOWN_TRACE).status_code == 429  # this address is out of requests
    for path in ("/health", "/ready", "/metrics", "/schema/openapi.json"):
        for _ in range(3):
            response = client.get(path)
            assert response.status_code == 200, (path, response.text)
            assert "RateLimit-Limit" not in response.headers


def test_a_refused_query_never_reaches_the_pipeline(
    client: TestClient[Any], caplog: pytest.LogCaptureFixture
) -> None:
    install(client, requests=2)
    before_answers, before_refused = answers_total(), sample("kgs_rate_limited_total", key="key-a")
    question = {"query": "What is basalt?", "scope": SCOPE}
    for _ in range(2):
        response = client.post("/v1/query", json=question, headers=key("key-a"))
        assert response.status_code == 200, response.text
    assert answers_total() == before_answers + 2  # the counter does move for a served query

    with caplog.at_level(logging.WARNING, logger="kgs.api.rate_limit"):
        refused = [client.post("/v1/query", json=question, headers=key("key-a")) for _ in range(3)]
    assert [r.status_code for r in refused] == [429, 429, 429]
    assert answers_total() == before_answers + 2  # no answer was computed for a refusal
    assert sample("kgs_rate_limited_total", key="key-a") == before_refused + 3
    logged = [r for r in caplog.records if r.name == "kgs.api.rate_limit"]
    assert [getattr(r, "traceId", None) for r in logged] == [
        r.headers["X-Trace-Id"] for r in refused
    ]
    assert all(getattr(r, "rateLimitIdentity", None) == "key:key-a" for r in logged)


def test_limit_zero_turns_the_limit_off(settings: Settings, graph: Graph) -> None:
    test_settings = rate_settings(settings, rate_limit_requests=0)
    app = create_app(test_settings, AppResources(test_settings, graph=graph))
    with TestClient(app) as off:
        for _ in range(20):
            response = off.get(UNKNOWN_TRACE, headers=key("key-a"))
            assert response.status_code == 404 and "RateLimit-Limit" not in response.headers


def test_openapi_documents_429_on_every_v1_operation(client: TestClient[Any]) -> None:
    paths = client.get("/schema/openapi.json").json()["paths"]
    v1 = [(p, op) for p, ops in paths.items() if p.startswith("/v1") for op in ops.values()]
    assert v1 and all("429" in op["responses"] for _, op in v1)
    assert not any("429" in op["responses"] for p in ("/health", "/ready")
                   for op in paths[p].values())  # fmt: skip


# --- the bucket itself -------------------------------------------------------------------------


def test_bucket_arithmetic() -> None:
    policy = RateLimitPolicy(requests=3, window_s=6.0, max_identities=10)  # 0.5 tokens per s
    bucket, first = take(policy, None, 0.0)
    assert (first.allowed, first.remaining, first.reset_s, first.retry_after_s) == (True, 2, 2, 0)
    bucket, _ = take(policy, bucket, 0.0)
    bucket, third = take(policy, bucket, 0.0)
    assert (third.allowed, third.remaining, third.reset_s) == (True, 0, 6)
    bucket, refused = take(policy, bucket, 0.5)  # 0.25 tokens: 1.5 s to the next one
    assert (refused.allowed, refused.remaining, refused.retry_after_s) == (False, 0, 2)
    assert bucket.tokens == pytest.approx(0.25)  # a refusal takes nothing
    _, later = take(policy, bucket, 100.0)  # refilled, never above the limit
    assert (later.allowed, later.remaining, later.reset_s) == (True, 2, 2)
    assert refused.headers()["Retry-After"] == "2" and "Retry-After" not in later.headers()


def test_memory_stays_bounded_and_the_least_recently_seen_go_first() -> None:
    clock = FakeClock()
    limiter = RateLimiter(RateLimitPolicy(requests=2, window_s=60.0, max_identities=3), clock)
    for _ in range(2):
        limiter.check("address:old")
    assert not limiter.check("address:old").allowed
    for n in range(1000):
        limiter.check(f"address:10.0.{n // 256}.{n % 256}")
        assert limiter.tracked() <= 3
    assert limiter.check("address:old").allowed  # evicted: it comes back with a full bucket

    limiter = RateLimiter(RateLimitPolicy(requests=2, window_s=60.0, max_identities=3), clock)
    for _ in range(2):
        limiter.check("key:busy")
    limiter.check("address:a")
    limiter.check("key:busy")  # seen again: now the most recent
    limiter.check("address:b")
    limiter.check("address:c")  # evicts address:a, the least recently seen
    assert limiter.tracked() == 3 and not limiter.check("key:busy").allowed


def test_concurrent_checks_never_serve_more_than_the_limit() -> None:
    limiter = RateLimiter(RateLimitPolicy(requests=100, window_s=60.0, max_identities=10),
                          FakeClock())  # fmt: skip
    served: list[int] = []
    start = threading.Barrier(8)

    def client() -> None:
        start.wait()
        served.append(sum(limiter.check("key:shared").allowed for _ in range(50)))

    threads = [threading.Thread(target=client) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(served) == 100  # 400 attempts, a frozen clock: exactly the bucket's tokens


# --- settings ----------------------------------------------------------------------------------


def test_rate_limit_settings_from_the_environment() -> None:
    api = Settings.from_env({}).api
    assert (api.rate_limit_requests, api.rate_limit_window_s, api.rate_limit_max_identities) == (
        600,
        60.0,
        10_000,
    )
    api = Settings.from_env({"KGS_API_RATE_LIMIT_REQUESTS": "0", "KGS_API_RATE_LIMIT_WINDOW_S":
                             "1.5", "KGS_API_RATE_LIMIT_MAX_IDENTITIES": "50"}).api  # fmt: skip
    assert (api.rate_limit_requests, api.rate_limit_window_s, api.rate_limit_max_identities) == (
        0,
        1.5,
        50,
    )
    for name, value in (("KGS_API_RATE_LIMIT_REQUESTS", "-1"),
                        ("KGS_API_RATE_LIMIT_REQUESTS", "many"),
                        ("KGS_API_RATE_LIMIT_WINDOW_S", "0"),
                        ("KGS_API_RATE_LIMIT_WINDOW_S", "soon"),
                        ("KGS_API_RATE_LIMIT_MAX_IDENTITIES", "0")):  # fmt: skip
        with pytest.raises(SettingsError, match=name):
            Settings.from_env({name: value})
