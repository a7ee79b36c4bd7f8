"""What a failed answer leaves behind: every 5xx and timeout of the answer path writes a failure
record (service/records/failures.py) with the stage where the error surfaced and its type, never
the question or the exception's text (the trace id leads to the service log)."""

from __future__ import annotations

import re
import traceback

from litestar.exceptions import HTTPException

from service.api.errors import neo4j_error_kind
from service.errors import KgsError

__all__ = ["AnswerFailed", "failure_stage", "failure_status"]

# Frames in these modules are plumbing: the stage is the deepest frame outside them.
_PLUMBING = ("service.db.", "service.api.")


class AnswerFailed(KgsError, RuntimeError):
    """An answer that failed in a worker process, as the problem to answer with and what its
    failure record keeps (run_answer answers with the problem, never with this)."""

    def __init__(self, problem: HTTPException, stage: str, error_type: str) -> None:
        super().__init__(problem.detail)
        self.problem = problem
        self.stage = stage
        self.error_type = error_type


def failure_stage(error: BaseException) -> str:
    """The kgs module where the error surfaced, without the "service." prefix
    ("pipeline.retrieval"): the deepest frame of kgs code that is not the database or API
    plumbing; "answer" when there is none."""
    stage = "answer"
    for frame, _ in traceback.walk_tb(error.__traceback__):
        module = str(frame.f_globals.get("__name__", ""))
        if module.startswith("service.") and not module.startswith(_PLUMBING):
            stage = module.removeprefix("service.")
    return stage


def failure_status(error: BaseException) -> tuple[int, str]:
    """The HTTP status the error is answered with and its type for the failure record."""
    kind = neo4j_error_kind(error)
    if kind is not None:
        return {"timeout": 504, "unavailable": 503}.get(kind, 500), f"neo4j-{kind}"
    if isinstance(error, KgsError):
        return error.http_status, _kebab(type(error).__name__)
    if isinstance(error, HTTPException):
        return error.status_code, f"http-{error.status_code}"
    return 500, "unexpected"


def _kebab(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "-", name).lower()
