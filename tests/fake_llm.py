"""A fake OpenAI-compatible chat server for the judge tests: http.server on 127.0.0.1, ephemeral
port, scripted replies. Each POST /v1/chat/completions pops the next scripted reply (the last
one repeats) and records the request body."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import msgspec


class Reply(msgspec.Struct, frozen=True, kw_only=True):
    content: str = ""  # the assistant text
    status: int = 200
    delay_s: float = 0.0  # sleep before answering (timeouts)
    raw: str | None = None  # a raw body instead of a chat completion
    # Send the headers (full Content-Length) and only this many body bytes, then close the
    # connection: a reply cut off mid-body. None: the whole body.
    truncate_at_bytes: int | None = None
    # The assistant text computed from the request body (replies that cite the ids the request
    # shows); None: `content`.
    write: Any = None


def verdict(status: str, ids: list[str], reason: str = "scripted") -> Reply:
    body = {"status": status, "supporting_ids": ids, "missing": [], "reason": reason}
    return Reply(content=json.dumps(body))


class FakeLlm:
    def __init__(self, replies: list[Reply]) -> None:
        self.replies = list(replies)
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            self.requests.append(body)
            return self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]


@contextmanager
def fake_llm(replies: list[Reply]) -> Iterator[tuple[str, FakeLlm]]:
    """Yields (base URL, recorder); the server stops when the block ends."""
    state = FakeLlm(replies)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            reply = state.next_reply(body)
            if reply.delay_s:
                time.sleep(reply.delay_s)
            text = reply.write(body) if reply.write is not None else reply.content
            payload = reply.raw if reply.raw is not None else json.dumps(
                {"id": "fake", "object": "chat.completion", "model": body.get("model"),
                 "choices": [{"index": 0, "finish_reason": "stop",
                              "message": {"role": "assistant", "content": text}}]}
            )  # fmt: skip
            data = payload.encode()
            try:
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data[: reply.truncate_at_bytes])
                if reply.truncate_at_bytes is not None:
                    self.wfile.flush()
                    self.close_connection = True
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout test)

        def log_message(self, format: str, *args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", state
    finally:
        server.shutdown()
        server.server_close()
