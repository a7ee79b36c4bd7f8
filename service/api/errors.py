"""Every error as RFC 9457 problem details (application/problem+json), mapped in one place.

    HTTPException (Litestar: validation 400, 401, 403, 404, 405, 413, 415) -> its own status
    KgsError (service/errors.py)                      -> its http_status: QuestionError and
        InvalidScope 400 (unusable input found deeper down), EmbeddingError 503, others 500
    neo4j DriverError, transient Neo4jError (database unreachable)       -> 503, Retry-After
    Neo4jError "transaction timed out", or ended waiting for a lock      -> 504
    anything else (a bug)                                       -> 500, traceback in the log

Problem bodies carry the request's traceId, so a client can quote it and the logs show the cause.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from http import HTTPStatus
from typing import Any, Literal

import msgspec
from litestar import Request, Response
from litestar.exceptions import HTTPException
from litestar.openapi.datastructures import ResponseSpec
from litestar.plugins.problem_details import ProblemDetailsConfig, ProblemDetailsException
from neo4j.exceptions import DriverError, Neo4jError

from service.api.context import current_trace_id
from service.api.metrics import count_neo4j_error
from service.errors import KgsError

__all__ = [
    "PROBLEM_MEDIA_TYPE",
    "Problem",
    "bad_request",
    "neo4j_error_kind",
    "not_found",
    "problem_config",
    "problem_for",
    "problem_responses",
    "unexpected_error_handler",
    "v1_problems",
]

log = logging.getLogger("kgs.api")

PROBLEM_MEDIA_TYPE = "application/problem+json"
NEO4J_RETRY_AFTER_S = 5  # what a 503 suggests to the client
_LOCK_WAIT_ENDED = "Neo.ClientError.Transaction.LockClientStopped"


class Problem(msgspec.Struct, kw_only=True):
    """RFC 9457 problem details (members beyond these are allowed, e.g. errors, indexes)."""

    status: int
    title: str
    detail: str | None = None
    traceId: str | None = None  # the JSON member name itself


def problem(
    status: int, detail: str, *, headers: dict[str, str] | None = None, **extra: Any
) -> ProblemDetailsException:
    return ProblemDetailsException(
        status_code=status,
        title=HTTPStatus(status).phrase,
        detail=detail,
        headers=headers,
        extra={"traceId": current_trace_id(), **extra},
    )


def not_found(what: str) -> ProblemDetailsException:
    return problem(404, f"{what} not found")


def bad_request(detail: str, **extra: Any) -> ProblemDetailsException:
    return problem(400, detail, **extra)


def _from_http(error: HTTPException) -> ProblemDetailsException:
    extra: dict[str, Any] = {}
    if isinstance(error.extra, Mapping):
        extra.update(error.extra)
    elif error.extra:
        extra["errors"] = error.extra
    return problem(error.status_code, str(error.detail), headers=error.headers, **extra)


def neo4j_error_kind(error: BaseException) -> Literal["timeout", "unavailable", "error"] | None:
    """How a Neo4j failure is answered and counted; None for any other error."""
    if not isinstance(error, DriverError | Neo4jError):
        return None
    code = getattr(error, "code", None) or ""
    # A transaction that times out while waiting for another one's lock ends with
    # LockClientStopped, not TransactionTimedOut* (Neo4j 5; tests/faults/test_transaction_timeout).
    if "TransactionTimedOut" in code or code == _LOCK_WAIT_ENDED:
        return "timeout"
    if isinstance(error, DriverError) or error.is_retryable():
        return "unavailable"
    return "error"


def _from_neo4j(error: Exception) -> ProblemDetailsException:
    kind = neo4j_error_kind(error) or "error"
    count_neo4j_error(kind)
    if kind == "timeout":
        return problem(
            504,
            "a Neo4j transaction ran past its timeout (a long query, or a wait "
            "for a lock held by another write); try again or narrow the request",
        )
    if kind == "unavailable":
        return problem(
            503, "Neo4j is unavailable; the service reconnects by itself when it returns",
            headers={"Retry-After": str(NEO4J_RETRY_AFTER_S)},
        )  # fmt: skip
    log.error("Neo4j error: %s", error, exc_info=error)
    return problem(500, "the database reported an error (see the service log by traceId)")


def _from_kgs(error: KgsError) -> ProblemDetailsException:
    if error.http_status < 500 or error.http_status == 503:
        return problem(error.http_status, error.public_detail())
    log.error("kgs error: %s", error, exc_info=error)
    return problem(error.http_status, "unexpected error (see the service log by traceId)")


_MAPPING: dict[type[Exception], Callable[[Any], ProblemDetailsException]] = {
    HTTPException: _from_http,
    DriverError: _from_neo4j,
    Neo4jError: _from_neo4j,
    KgsError: _from_kgs,  # each kind says its status (service/errors.py)
}


def problem_config() -> ProblemDetailsConfig:
    return ProblemDetailsConfig(exception_to_problem_detail_map=_MAPPING)


def problem_for(error: Exception) -> ProblemDetailsException:
    """The problem an error becomes (for errors met after a stream has started)."""
    if isinstance(error, ProblemDetailsException):
        return error
    for kind in type(error).__mro__:
        if kind in _MAPPING:
            return _MAPPING[kind](error)
    log.error("unhandled error", exc_info=error)
    return problem(500, "unexpected error (see the service log by traceId)")


def unexpected_error_handler(request: Request[Any, Any, Any], error: Exception) -> Response[Any]:
    """The last resort: a bug. The client gets a problem with the trace id, the log the cause."""
    log.error("unhandled error on %s %s", request.method, request.url.path, exc_info=error)
    return problem(500, "unexpected error (see the service log by traceId)").to_response(request)


def v1_problems(*statuses: int) -> dict[int, ResponseSpec]:
    """What every /v1 route can answer (bad input, no key, rate limit, Neo4j down or slow), plus
    `statuses`."""
    return problem_responses(400, 401, 429, 503, 504, *statuses)


def problem_responses(*statuses: int) -> dict[int, ResponseSpec]:
    """OpenAPI entries for the problem answers a route can give."""
    return {
        status: ResponseSpec(
            data_container=Problem,
            description=HTTPStatus(status).phrase,
            media_type=PROBLEM_MEDIA_TYPE,
            generate_examples=False,
        )
        for status in statuses
    }
