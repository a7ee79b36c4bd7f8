"""The operations routes (docs/operations.md, "Operations API"), scoped by key like every route:
a key sees the scopes it reads, and `scope` narrows to one of them.

GET /v1/ops/summary?scope=&since=&until=&bucket=&limit=
GET /v1/ops/gaps?scope=&since=&until=&limit=
GET /v1/ops/failures?scope=&since=&until=&bucket=
"""

from __future__ import annotations

import time
from typing import Annotated

from litestar import Controller, get
from litestar.params import Parameter

from service.api.auth import Grant
from service.api.errors import bad_request, v1_problems
from service.api.scopes import SCOPE_PATTERN, readable_scope
from service.api.state import AppResources
from service.ops import (
    FailureReport,
    GapReport,
    Summary,
    Window,
    read_failures,
    read_gaps,
    read_summary,
    window_of,
)

__all__ = ["OpsController"]

_SCOPE = Parameter(query="scope", pattern=SCOPE_PATTERN,
                   description="one readable scope (default: all of them)")  # fmt: skip
_SINCE = Parameter(max_length=40, description="ISO 8601 (UTC without an offset); default: "
                   "KGS_OPS_DEFAULT_WINDOW_S before until")  # fmt: skip
_UNTIL = Parameter(max_length=40, description="ISO 8601; default: now")
_BUCKET = Parameter(description="hour or day; the window widens to whole buckets")
_LIMIT = Parameter(ge=1, description="rows per list (KGS_OPS_DEFAULT_LIMIT when absent; at most "
                   "KGS_OPS_MAX_LIMIT)")  # fmt: skip


class OpsController(Controller):
    path = "/ops"
    tags = ["operations"]  # noqa: RUF012

    @get("/summary", sync_to_thread=True, responses=v1_problems(400, 404))
    def summary(
        self,
        resources: AppResources,
        grant: Grant,
        scope_name: Annotated[str | None, _SCOPE] = None,
        since: Annotated[str | None, _SINCE] = None,
        until: Annotated[str | None, _UNTIL] = None,
        bucket: Annotated[str, _BUCKET] = "hour",
        limit: Annotated[int | None, _LIMIT] = None,
    ) -> Summary:
        """Answers by status per bucket, abstention and conflict rates, latency p50/p95 per
        pipeline stage, the most and never cited documents, tickets opened and closed."""
        window, asked = _request(resources, grant, scope_name, since, until, bucket)
        return read_summary(resources.request_graph(), window, resources.settings.ops,
                            scope=asked, scopes=grant.readable(),
                            limit=_limit(resources, limit))  # fmt: skip

    @get("/gaps", sync_to_thread=True, responses=v1_problems(400, 404))
    def gaps(
        self,
        resources: AppResources,
        grant: Grant,
        scope_name: Annotated[str | None, _SCOPE] = None,
        since: Annotated[str | None, _SINCE] = None,
        until: Annotated[str | None, _UNTIL] = None,
        limit: Annotated[int | None, _LIMIT] = None,
    ) -> GapReport:
        """Questions not answered (abstained, partial, refused), grouped by similar key words,
        most asked first, with when they were last asked and the open tickets about them."""
        window, asked = _request(resources, grant, scope_name, since, until, "day")
        return read_gaps(resources.request_graph(), window, resources.settings.ops, scope=asked,
                         scopes=grant.readable(), limit=_limit(resources, limit))  # fmt: skip

    @get("/failures", sync_to_thread=True, responses=v1_problems(400, 404))
    def failures(
        self,
        resources: AppResources,
        grant: Grant,
        scope_name: Annotated[str | None, _SCOPE] = None,
        since: Annotated[str | None, _SINCE] = None,
        until: Annotated[str | None, _UNTIL] = None,
        bucket: Annotated[str, _BUCKET] = "hour",
    ) -> FailureReport:
        """Failed requests of the answer path (5xx and timeouts) per bucket, by stage and error
        type, and the newest ones with their trace ids."""
        window, asked = _request(resources, grant, scope_name, since, until, bucket)
        return read_failures(resources.request_graph(), window, resources.settings.ops,
                             scope=asked, scopes=grant.readable())  # fmt: skip


def _request(
    resources: AppResources, grant: Grant, scope: str | None, since: str | None,
    until: str | None, bucket: str,
) -> tuple[Window, str | None]:  # fmt: skip
    asked = readable_scope(grant, scope) if scope is not None else None
    now_ms = time.time_ns() // 1_000_000
    return window_of(since, until, bucket, resources.settings.ops, now_ms), asked


def _limit(resources: AppResources, limit: int | None) -> int:
    settings = resources.settings.ops
    if limit is None:
        return settings.default_limit
    if limit > settings.max_limit:
        raise bad_request(f"limit is larger than {settings.max_limit}")
    return limit
