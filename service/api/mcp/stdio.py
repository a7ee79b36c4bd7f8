"""`kgs mcp`: the MCP server over stdio, for a desktop or IDE assistant that starts it as a
child process. The resources open inside the SDK's stdio context, which points the process's
standard output at standard error while it serves: nothing the answer pool's worker processes or
a library prints can corrupt the protocol stream."""

from __future__ import annotations

import anyio

from service.api.auth import Keyring
from service.api.mcp.server import build_server
from service.api.rate_limit import RateLimiter
from service.api.state import AppResources, lifespan
from service.settings import Settings

__all__ = ["serve_stdio"]


def serve_stdio(settings: Settings) -> None:
    """Serve until the client closes standard input."""
    resources = AppResources(settings)
    server = build_server(
        resources, Keyring(settings.api), RateLimiter.from_settings(settings.api),
        lifespan=lifespan(resources),
    )  # fmt: skip
    anyio.run(server.run_stdio_async)
