"""A scope's health report over HTTP (docs/health.md): what needs an editor's attention.

GET /v1/scopes/{scope}/health?limit=            every section's first page
GET /v1/scopes/{scope}/health/{section}?after=&limit=
                                                one section's next page (`nextAfter`)
"""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, get
from litestar.params import Parameter

from service.api.auth import Grant
from service.api.errors import v1_problems
from service.api.scopes import SCOPE_PATTERN, readable_scope
from service.api.state import AppResources
from service.health import HealthReport, Section, SectionPage, health_report, health_section

__all__ = ["HealthController"]

_SCOPE = Parameter(pattern=SCOPE_PATTERN, description="the scope to report on")
_LIMIT = Parameter(ge=1, description="findings per section (KGS_HEALTH_PAGE_SIZE when absent)")
_AFTER = Parameter(max_length=2000, description="`nextAfter` of the previous page")


class HealthController(Controller):
    path = "/scopes/{scope_name:str}/health"
    tags = ["health report"]  # noqa: RUF012

    @get(sync_to_thread=True, responses=v1_problems(400, 404))
    def report(
        self,
        resources: AppResources,
        grant: Grant,
        scope_name: Annotated[str, _SCOPE],
        limit: Annotated[int | None, _LIMIT] = None,
    ) -> HealthReport:
        """Contradicting facts (the most cited first), expired or superseded pages, knowledge
        points no page describes, relations to missing points, near-duplicate paragraphs and
        open gaps: the first page of each."""
        scope = readable_scope(grant, scope_name)
        return health_report(resources.request_graph(), scope, resources.settings.health,
                             limit=limit)  # fmt: skip

    @get("/{section:str}", sync_to_thread=True, responses=v1_problems(400, 404))
    def section(
        self,
        resources: AppResources,
        grant: Grant,
        scope_name: Annotated[str, _SCOPE],
        section: Section,
        after: Annotated[str | None, _AFTER] = None,
        limit: Annotated[int | None, _LIMIT] = None,
    ) -> SectionPage[Any]:
        """One page of one section."""
        scope = readable_scope(grant, scope_name)
        return health_section(resources.request_graph(), scope, section,
                              resources.settings.health, after=after, limit=limit)  # fmt: skip
