"""Litestar application factory."""

from __future__ import annotations

from litestar import Litestar
from litestar.di import Provide
from litestar.openapi import OpenAPIConfig
from litestar.plugins.problem_details import ProblemDetailsConfig, ProblemDetailsPlugin

from service.api.health import health, ready
from service.api.state import AppResources, lifespan
from service.settings import Settings

__all__ = ["create_app"]


def create_app(settings: Settings | None = None, resources: AppResources | None = None) -> Litestar:
    resources = resources or AppResources(settings or Settings.from_env())
    return Litestar(
        route_handlers=[health, ready],
        dependencies={
            "resources": Provide(lambda: resources, use_cache=True, sync_to_thread=False)
        },
        lifespan=[lifespan(resources)],
        plugins=[ProblemDetailsPlugin(ProblemDetailsConfig(enable_for_all_http_exceptions=True))],
        openapi_config=OpenAPIConfig(
            title="kgs: Knowledge Graph Service", version="0.1.0", path="/schema"
        ),
    )
