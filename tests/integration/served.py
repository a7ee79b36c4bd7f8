"""The API served in a thread on a free local port, for tests that need a real HTTP client (a
browser, an MCP client) rather than Litestar's test client."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn

from service.api import create_app
from service.api.state import AppResources
from service.settings import Settings

START_S = 30.0  # the app's start-up: schema check, model and process pool on 2 busy cores


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def serve_app(settings: Settings, resources: AppResources) -> Iterator[str]:
    """Serve until the block ends; yields the base URL."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(settings, resources), host="127.0.0.1",
                                           port=port, log_level="warning"))  # fmt: skip
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + START_S
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the API did not start"
        time.sleep(0.1)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(30)
