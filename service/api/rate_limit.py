"""Per-key rate limits on /v1: RateLimit headers on every answer, 429 past the limit.

Who is counted: the configured name of the key a request presents; a request without a valid
key (401s included, so guessing keys is limited too) and every request in development mode are
counted by client address. Behind a reverse proxy the address is the proxy's unless the server
runs with proxy headers (uvicorn --proxy-headers --forwarded-allow-ips).

How: a token bucket per identity. It holds up to `rate_limit_requests` tokens and refills at
`rate_limit_requests / rate_limit_window_s` per second; a request takes one token or is refused.
Chosen over a fixed window (which lets 2x the limit through across a window boundary) and over a
sliding log (one timestamp per request: memory grows with the limit): two floats per identity,
O(1) per request, and the limit holds over every window-long interval.

Headers follow draft-ietf-httpapi-ratelimit-headers-06 (the revision with separate fields, the
names Litestar's own middleware also uses): RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset
(whole seconds until the bucket is full again: a full window's quota) and RateLimit-Policy
(`<limit>;w=<window seconds>`). A refusal adds Retry-After (seconds until one request passes).

The refusal is answered before the route's guards and handler run: no Neo4j, no model call.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import msgspec
from litestar.connection import ASGIConnection, Request
from litestar.enums import ScopeType
from litestar.middleware import ASGIMiddleware
from litestar.plugins.problem_details import ProblemDetailsException
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from service.api.auth.guards import KEYRING_STATE, presented_key
from service.api.auth.keys import DEV_GRANT, Keyring
from service.api.context import current_trace_id
from service.api.errors import problem
from service.api.metrics import count_rate_limited
from service.settings import ApiSettings

__all__ = [
    "RATE_LIMITER_STATE",
    "Bucket",
    "Decision",
    "Identity",
    "RateLimitMiddleware",
    "RateLimitPolicy",
    "RateLimiter",
    "identify",
    "take",
]

log = logging.getLogger("kgs.api.rate_limit")

RATE_LIMITER_STATE = "rate_limiter"  # app.state key of the RateLimiter
ADDRESS_METRIC_LABEL = "-"  # the metric's key label for address-identified clients
UNKNOWN_ADDRESS = "unknown"  # an ASGI server that reports no client address


class RateLimitPolicy(msgspec.Struct, frozen=True, kw_only=True):
    requests: int  # per window and the largest burst; 0: no limit
    window_s: float
    max_identities: int  # buckets kept at once

    @classmethod
    def from_settings(cls, api: ApiSettings) -> RateLimitPolicy:
        return cls(
            requests=api.rate_limit_requests,
            window_s=api.rate_limit_window_s,
            max_identities=api.rate_limit_max_identities,
        )

    @property
    def enabled(self) -> bool:
        return self.requests > 0

    @property
    def refill_per_s(self) -> float:
        return self.requests / self.window_s


class Bucket(msgspec.Struct, frozen=True, kw_only=True):
    tokens: float
    at_s: float  # clock reading when `tokens` was computed


class Decision(msgspec.Struct, frozen=True, kw_only=True):
    allowed: bool
    limit: int
    remaining: int
    reset_s: int  # until the bucket is full again
    retry_after_s: int  # until the next request passes (0 when this one did)
    window_s: float

    def headers(self) -> dict[str, str]:
        fields = {
            "RateLimit-Limit": str(self.limit),
            "RateLimit-Remaining": str(self.remaining),
            "RateLimit-Reset": str(self.reset_s),
            # The draft's window parameter is whole seconds.
            "RateLimit-Policy": f"{self.limit};w={math.ceil(self.window_s)}",
        }
        if not self.allowed:
            fields["Retry-After"] = str(self.retry_after_s)
        return fields


class Identity(msgspec.Struct, frozen=True, kw_only=True):
    bucket: str  # "key:<name>" or "address:<host>": the two never share a bucket
    key: str | None  # the configured key name, None for an address

    def describe(self) -> str:
        return "this API key" if self.key is not None else "this client address"


def take(policy: RateLimitPolicy, bucket: Bucket | None, now_s: float) -> tuple[Bucket, Decision]:
    """One request against one identity's bucket (None: never seen, a full bucket)."""
    capacity, rate = float(policy.requests), policy.refill_per_s
    if bucket is None:
        tokens = capacity
    else:
        tokens = min(capacity, bucket.tokens + max(0.0, now_s - bucket.at_s) * rate)
    allowed = tokens >= 1.0
    if allowed:
        tokens -= 1.0
    decision = Decision(
        allowed=allowed,
        limit=policy.requests,
        remaining=math.floor(tokens),
        reset_s=math.ceil((capacity - tokens) / rate),
        retry_after_s=0 if allowed else max(1, math.ceil((1.0 - tokens) / rate)),
        window_s=policy.window_s,
    )
    return Bucket(tokens=tokens, at_s=now_s), decision


class RateLimiter:
    """The buckets of the identities seen most recently, at most `max_identities` of them.

    An identity that was evicted comes back with a full bucket; the least recently seen go
    first, and one idle for a window is full anyway, so only a flood of fresh addresses can make
    an active one forget its debt.

    The middleware calls `check` on the event loop, where it cannot interleave with itself (it
    never awaits). The lock also makes it correct from worker threads; uncontended it costs well
    under a microsecond and is never held across I/O.
    """

    def __init__(
        self, policy: RateLimitPolicy, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.policy = policy
        self.clock = clock
        self._buckets: OrderedDict[str, Bucket] = OrderedDict()
        self._lock = threading.Lock()

    @classmethod
    def from_settings(cls, api: ApiSettings) -> RateLimiter:
        return cls(RateLimitPolicy.from_settings(api))

    def check(self, identity: str) -> Decision:
        with self._lock:
            bucket, decision = take(self.policy, self._buckets.get(identity), self.clock())
            self._buckets[identity] = bucket
            self._buckets.move_to_end(identity)
            while len(self._buckets) > self.policy.max_identities:
                self._buckets.popitem(last=False)
            return decision

    def tracked(self) -> int:
        return len(self._buckets)


def identify(connection: ASGIConnection[Any, Any, Any, Any], keyring: Keyring) -> Identity:
    """The presented key's name when it is valid (the same check as authentication), else the
    client address."""
    grant = keyring.grant_for(presented_key(connection))
    if grant is not None and grant is not DEV_GRANT:
        return Identity(bucket=f"key:{grant.key}", key=grant.key)
    client = connection.scope.get("client")
    host = client[0] if client else UNKNOWN_ADDRESS
    return Identity(bucket=f"address:{host}", key=None)


def refusal(decision: Decision, identity: Identity) -> ProblemDetailsException:
    refused = problem(
        429,
        f"rate limit reached: {decision.limit} requests per {decision.window_s:g} s for "
        f"{identity.describe()}; retry in {decision.retry_after_s} s",
        headers=decision.headers(),
    )
    refused.type_ = "about:blank"  # RFC 9457: no semantics beyond the status code
    return refused


class RateLimitMiddleware(ASGIMiddleware):
    """On the /v1 router: checks before the guards and the handler, headers on every answer."""

    scopes = (ScopeType.HTTP,)

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        connection: ASGIConnection[Any, Any, Any, Any] = ASGIConnection(scope)
        limiter: RateLimiter | None = connection.app.state.get(RATE_LIMITER_STATE)
        if limiter is None or not limiter.policy.enabled:
            await next_app(scope, receive, send)
            return
        identity = identify(connection, connection.app.state[KEYRING_STATE])
        decision = limiter.check(identity.bucket)
        if not decision.allowed:
            count_rate_limited(identity.key or ADDRESS_METRIC_LABEL)
            log.warning(
                "rate limited: %s", identity.bucket,
                extra={"rateLimitIdentity": identity.bucket, "path": scope["path"],
                       "retryAfterS": decision.retry_after_s, "traceId": current_trace_id()},
            )  # fmt: skip
            # Answered here, not raised: an exception would unwind through the outer middleware
            # (trace id header, access log) before the app's exception handler answers.
            request: Request[Any, Any, Any] = Request(scope, receive, send)
            response = refusal(decision, identity).to_response(request)
            await response.to_asgi_response(connection.app, request)(scope, receive, send)
            return
        fields = [(k.lower().encode(), v.encode()) for k, v in decision.headers().items()]

        async def send_with_limits(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *fields]}
            await send(message)

        await next_app(scope, receive, send_with_limits)
