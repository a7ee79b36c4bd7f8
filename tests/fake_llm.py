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
    # A request with `stream: true` gets the text as server-sent chunks of this many
    # characters, this far apart; after `stop_after_chunks` chunks the connection closes
    # without [DONE] (a server stopped mid-stream).
    chunk_chars: int = 12
    chunk_delay_s: float = 0.0
    stop_after_chunks: int | None = None
    on_chunk: Any = None  # called with the text sent so far, after each streamed chunk


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
            if body.get("stream") and reply.raw is None and reply.status == 200:
                self._stream(text, reply)
                return
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

        def _stream(self, text: str, reply: Reply) -> None:
            pieces = [
                text[i : i + reply.chunk_chars] for i in range(0, len(text), reply.chunk_chars)
            ]
            try:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for count, piece in enumerate(pieces):
                    if reply.stop_after_chunks is not None and count == reply.stop_after_chunks:
                        self.close_connection = True
                        return
                    chunk = {"choices": [{"index": 0, "delta": {"content": piece}}]}
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
                    if reply.on_chunk is not None:
                        reply.on_chunk("".join(pieces[: count + 1]))
                    time.sleep(reply.chunk_delay_s)
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass

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
