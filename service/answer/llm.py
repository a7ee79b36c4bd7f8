"""One small client for OpenAI-compatible chat completions (OpenAI, Ollama, vLLM, LM Studio, ...).

One POST to `{base_url}/chat/completions` per call, a whole-request timeout and no retries: the
caller (the sufficiency judge) always has a deterministic fallback, so a slow or broken provider
costs at most `timeout_s` and never blocks an answer.

Exceptions, all subclasses of LlmError, each with a short stable `reason` for the trace:

    LlmError
    ├── LlmTimeout        reason "timeout"        the provider did not answer in time
    ├── LlmUnavailable    reason "connection"     no connection (refused, DNS, TLS)
    ├── LlmHttpError      reason "http_<status>"  a non-2xx status
    └── LlmProtocolError  reason "bad_response"   2xx, but not a chat completion with text
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

import httpx
import msgspec

from service.errors import KgsError
from service.settings import LlmSettings

__all__ = [
    "ChatClient",
    "LlmError",
    "LlmHttpError",
    "LlmProtocolError",
    "LlmTimeout",
    "LlmUnavailable",
    "client_from_settings",
    "reply_json",
]


class LlmError(KgsError):
    reason = "error"


class LlmTimeout(LlmError):
    reason = "timeout"


class LlmUnavailable(LlmError):
    reason = "connection"


class LlmHttpError(LlmError):
    def __init__(self, status: int, body: str) -> None:
        super().__init__(f"provider answered HTTP {status}: {body[:200]}")
        self.status = status
        self.reason = f"http_{status}"


class LlmProtocolError(LlmError):
    reason = "bad_response"


class _Message(msgspec.Struct, frozen=True):
    content: str | None = None


class _Choice(msgspec.Struct, frozen=True):
    message: _Message


class _Completion(msgspec.Struct, frozen=True):
    choices: list[_Choice]


class _Delta(msgspec.Struct, frozen=True):
    content: str | None = None


class _ChunkChoice(msgspec.Struct, frozen=True):
    delta: _Delta = msgspec.field(default_factory=_Delta)


class _Chunk(msgspec.Struct, frozen=True):
    choices: list[_ChunkChoice]


def _delta(data: str) -> str:
    """The text of one streamed chunk (`data: {...}`); none for a chunk without text."""
    try:
        chunk = msgspec.json.decode(data, type=_Chunk)
    except msgspec.DecodeError as error:
        raise LlmProtocolError(f"not a chat completion chunk: {error}") from error
    return (chunk.choices[0].delta.content or "") if chunk.choices else ""


class ChatClient:
    """`complete(system, user, schema)` -> the assistant's text. Thread-safe; one per process."""

    def __init__(self, settings: LlmSettings, transport: httpx.BaseTransport | None = None) -> None:
        if not settings.base_url:
            raise ValueError("an LLM client needs a base URL")
        self.settings = settings
        headers = {"Content-Type": "application/json"}
        if settings.api_key:
            headers["Authorization"] = f"Bearer {settings.api_key}"
        self._http = httpx.Client(
            base_url=settings.base_url.rstrip("/"),
            headers=headers,
            timeout=httpx.Timeout(settings.timeout_s),
            transport=transport,  # None: httpx's default, which never retries a request
        )

    def complete(self, system: str, user: str, schema: Mapping[str, Any] | None = None) -> str:
        body = self._body(system, user, schema)
        try:
            response = self._http.post("/chat/completions", json=body)
        except httpx.TimeoutException as error:
            limit = self.settings.timeout_s
            raise LlmTimeout(f"provider did not answer within {limit} s") from error
        except httpx.TransportError as error:
            raise LlmUnavailable(f"provider unreachable: {error}") from error
        if response.status_code // 100 != 2:
            raise LlmHttpError(response.status_code, response.text)
        try:
            completion = msgspec.json.decode(response.content, type=_Completion)
        except msgspec.DecodeError as error:
            raise LlmProtocolError(f"not a chat completion: {error}") from error
        if not completion.choices or not completion.choices[0].message.content:
            raise LlmProtocolError("the completion has no text")
        return completion.choices[0].message.content

    def _body(self, system: str, user: str, schema: Mapping[str, Any] | None) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.settings.model,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": user},
            ],
            "temperature": 0,
            "max_tokens": self.settings.max_output_tokens,
            "stream": False,
        }
        if schema is not None and self.settings.response_format == "json_schema":
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "verdict", "strict": True, "schema": dict(schema)},
            }
        elif schema is not None and self.settings.response_format == "json_object":
            body["response_format"] = {"type": "json_object"}
        return body

    def stream(self, system: str, user: str, on_text: Callable[[str], None]) -> str:
        """The assistant's text, streamed (`stream: true`): `on_text` hears each piece as it
        arrives. A stream that ends before its `[DONE]` (the server stopped mid-stream) is a
        protocol error, and `timeout_s` bounds the whole stream, not only each read."""
        body = self._body(system, user, None) | {"stream": True}
        started = time.monotonic()
        parts: list[str] = []
        try:
            with self._http.stream("POST", "/chat/completions", json=body) as response:
                if response.status_code // 100 != 2:
                    raise LlmHttpError(
                        response.status_code, response.read().decode(errors="replace")
                    )
                for line in response.iter_lines():
                    if time.monotonic() - started > self.settings.timeout_s:
                        raise LlmTimeout(
                            f"provider did not finish within {self.settings.timeout_s} s"
                        )
                    data = line[len("data:") :].strip() if line.startswith("data:") else None
                    if data == "[DONE]":
                        return "".join(parts)
                    if data:
                        piece = _delta(data)
                        parts.append(piece)
                        on_text(piece)
        except httpx.TimeoutException as error:
            raise LlmTimeout(
                f"provider did not answer within {self.settings.timeout_s} s"
            ) from error
        except httpx.TransportError as error:
            raise LlmUnavailable(f"provider stream broken: {error}") from error
        raise LlmProtocolError("the stream ended before [DONE]")

    def close(self) -> None:
        self._http.close()


def client_from_settings(settings: LlmSettings) -> ChatClient | None:
    """The configured provider's client, or None when no base URL is set (the usual case)."""
    return ChatClient(settings) if settings.enabled else None


def reply_json(reply: str) -> str:
    """The reply itself, or the JSON object inside a ```json fence some servers add."""
    text = reply.strip()
    if text.startswith("```"):
        text = text.strip("`")
        text = text[text.find("{") :] if "{" in text else text
    return text
