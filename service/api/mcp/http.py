"""The MCP server over streamable HTTP at /mcp, inside the REST application.

The SDK's session manager runs stateless and answers JSON: each POST carries one exchange and
no session lives in the process, so /mcp works the same behind several workers or replicas,
like the REST routes. The mount sits behind the REST API's key check (401 before any MCP
message is read) and its rate limit middleware (429 with Retry-After)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager

from litestar import Litestar, Router, asgi
from litestar.types import Receive, Scope, Send
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp
from mcp.server.transport_security import TransportSecuritySettings

from service.api.auth import Keyring, authenticate
from service.api.mcp.server import build_server
from service.api.rate_limit import RateLimiter, RateLimitMiddleware
from service.api.state import AppResources

__all__ = ["MCP_PATH", "mcp_router"]

MCP_PATH = "/mcp"


def mcp_router(
    resources: AppResources, keyring: Keyring, limiter: RateLimiter
) -> tuple[Router, Callable[[Litestar], AbstractAsyncContextManager[None]]]:
    """The /mcp router and the lifespan that runs its session manager while the app serves."""
    server = build_server(resources, keyring, limiter)
    hosts = resources.settings.mcp.host_patterns()
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=bool(hosts),
        allowed_hosts=hosts,
        allowed_origins=[f"{scheme}://{host}" for host in hosts for scheme in ("http", "https")],
    )
    server.streamable_http_app(stateless_http=True, json_response=True,
                               transport_security=security)  # fmt: skip
    manager = server.session_manager
    endpoint = StreamableHTTPASGIApp(manager)

    async def serve(scope: Scope, receive: Receive, send: Send) -> None:
        await endpoint(scope, receive, send)  # type: ignore[arg-type]

    mount = asgi("/", is_mount=True, include_in_schema=False)(serve)
    router = Router(path=MCP_PATH, route_handlers=[mount], guards=[authenticate],
                    middleware=[RateLimitMiddleware()])  # fmt: skip

    @asynccontextmanager
    async def running(_: Litestar) -> AsyncIterator[None]:
        async with manager.run():
            yield

    return router, running
