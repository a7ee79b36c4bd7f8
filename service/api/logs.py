"""Structured JSON logs: one object per line with the request's trace id.

`kgs serve` installs the formatter on the root logger; every request then logs one access line
(`kgs.api.access`: method, path, status, durationMs) and errors carry the same traceId.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any

from litestar.middleware import ASGIMiddleware
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from service.api.context import TRACE_HEADER, new_trace_id, trace_id_var

__all__ = ["JsonFormatter", "RequestContextMiddleware", "configure_json_logging"]

access_log = logging.getLogger("kgs.api.access")
_STANDARD = frozenset(logging.makeLogRecord({}).__dict__) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if (trace_id := trace_id_var.get()) is not None:
            entry["traceId"] = trace_id
        entry.update({k: v for k, v in record.__dict__.items() if k not in _STANDARD})
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False, default=str)


def configure_json_logging(level: int = logging.INFO) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    for noisy in ("neo4j", "uvicorn.access", "httpx"):
        logging.getLogger(noisy).setLevel(logging.WARNING)


class RequestContextMiddleware(ASGIMiddleware):
    """Gives each request a trace id (header X-Trace-Id) and logs one line when it ends."""

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        trace_id = new_trace_id()
        token = trace_id_var.set(trace_id)
        started = time.perf_counter()
        status = 500
        path = scope["path"]  # as asked: a mount (/mcp) rewrites the scope's path to its own

        async def send_with_trace(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = list(message.get("headers", []))
                headers.append((TRACE_HEADER.lower().encode(), trace_id.encode()))
                message = {**message, "headers": headers}
            await send(message)

        try:
            await next_app(scope, receive, send_with_trace)
        finally:
            access_log.info(
                "%s %s %s", scope.get("method", ""), path, status,
                extra={"method": scope.get("method", ""), "path": path,
                       "status": status,
                       "durationMs": round((time.perf_counter() - started) * 1000, 2)},
            )  # fmt: skip
            trace_id_var.reset(token)
