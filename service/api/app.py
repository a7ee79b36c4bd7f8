"""Litestar application factory: routes, dependencies, guards, errors, metrics, OpenAPI."""

from __future__ import annotations

from typing import Any

from litestar import Litestar, Router
from litestar.datastructures import State
from litestar.di import Provide
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import SwaggerRenderPlugin
from litestar.openapi.spec import Components, SecurityScheme
from litestar.plugins.opentelemetry import OpenTelemetryConfig, OpenTelemetryPlugin
from litestar.plugins.problem_details import ProblemDetailsPlugin
from opentelemetry.sdk.trace import TracerProvider

from service.api.answers import AnswerController
from service.api.auth import (
    API_KEY_HEADER,
    KEYRING_STATE,
    Keyring,
    authenticate,
    provide_grant,
)
from service.api.browser_guide import browser_guide
from service.api.changes import ChangeController
from service.api.document_versions import DocumentVersionController
from service.api.documents import DocumentController
from service.api.embeddings import EmbeddingController
from service.api.errors import problem_config, unexpected_error_handler
from service.api.escalations import EscalationController
from service.api.evidence_inspector import inspector_routes
from service.api.gap_recheck import recheck_gaps
from service.api.health import health, ready
from service.api.health_report import HealthController
from service.api.knowledge_points import KnowledgePointController
from service.api.logs import RequestContextMiddleware
from service.api.metrics import metrics, prometheus_config
from service.api.ops import OpsController
from service.api.queries import QueryController
from service.api.rate_limit import RATE_LIMITER_STATE, RateLimiter, RateLimitMiddleware
from service.api.retention_task import retain_versions
from service.api.reviews import ReviewController
from service.api.state import AppResources, lifespan
from service.api.streaming import StreamController
from service.api.telemetry import otlp_tracer_provider
from service.api.traces import TraceController
from service.settings import Settings

__all__ = ["create_app"]

API_VERSION = "0.1.0"


def create_app(
    settings: Settings | None = None,
    resources: AppResources | None = None,
    tracer_provider: TracerProvider | None = None,
) -> Litestar:
    """`tracer_provider`: spans go there (tests pass one with an in-memory exporter); None: an
    OTLP exporter when OTEL_EXPORTER_OTLP_ENDPOINT is set, else no tracing at all."""
    settings = settings or (resources.settings if resources else Settings.from_env())
    resources = resources or AppResources(settings)
    provider = tracer_provider or otlp_tracer_provider(settings.telemetry)
    plugins: list[Any] = [ProblemDetailsPlugin(problem_config())]
    if provider is not None:
        resources.tracer = provider.get_tracer("kgs")
        plugins.append(OpenTelemetryPlugin(OpenTelemetryConfig(
            tracer_provider=provider, exclude=["/health", "/ready", "/metrics"],
        )))  # fmt: skip
    v1 = Router(
        path="/v1",
        route_handlers=[
            QueryController, StreamController, DocumentController, KnowledgePointController,
            TraceController, AnswerController, DocumentVersionController, ChangeController,
            EmbeddingController, EscalationController, ReviewController, HealthController,
            OpsController,
        ],
        guards=[authenticate],
        middleware=[RateLimitMiddleware()],  # runs before the guards: a 401 is counted too
        dependencies={"grant": Provide(provide_grant, sync_to_thread=False)},
        security=[{"apiKey": []}],
    )  # fmt: skip
    keyring, limiter = Keyring(settings.api), RateLimiter.from_settings(settings.api)
    handlers: list[Router | Any] = [health, ready, metrics, browser_guide, *inspector_routes(), v1]
    lifespans = [lifespan(resources, background=(recheck_gaps, retain_versions))]
    if settings.mcp.enabled:
        from service.api.mcp.http import mcp_router  # the SDK loads only where MCP is served

        router, running = mcp_router(resources, keyring, limiter)
        handlers.append(router)
        lifespans.append(running)  # after the resources open, before they close
    return Litestar(
        route_handlers=handlers,
        dependencies={
            "resources": Provide(lambda: resources, use_cache=True, sync_to_thread=False)
        },
        state=State({KEYRING_STATE: keyring, RATE_LIMITER_STATE: limiter}),
        lifespan=lifespans,
        middleware=[prometheus_config().middleware, RequestContextMiddleware()],
        plugins=plugins,
        exception_handlers={Exception: unexpected_error_handler},
        request_max_body_size=settings.api.max_upload_bytes,
        openapi_config=OpenAPIConfig(
            title="kgs: Knowledge Graph Service",
            version=API_VERSION,
            path="/schema",
            render_plugins=[SwaggerRenderPlugin()],
            components=Components(
                security_schemes={
                    "apiKey": SecurityScheme(
                        type="apiKey",
                        name=API_KEY_HEADER,
                        security_scheme_in="header",
                        description="an API key configured in KGS_API_KEYS",
                    )
                }
            ),
        ),
    )
