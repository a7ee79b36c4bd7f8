"""An answer as a record: what is stored of it, built from the response the question layer made
(pure: no I/O)."""

from __future__ import annotations

import time
import zlib
from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

__all__ = ["AnswerRecord", "Span", "build_record", "iso_time", "record_response"]

_COMPRESSION_LEVEL = 6  # zlib: traces shrink about 8x; level 9 costs twice the time for ~2 %
_TRACE_OMITTED = {"omitted": "the compressed response was larger than KGS_RECORDS_MAX_BYTES"}


class Span(msgspec.Struct, frozen=True, rename="camel"):
    document_id: str
    start_offset: int
    end_offset: int
    role: str = "citation"
    version: int | None = None  # the document version a citation quotes


class AnswerRecord(msgspec.Struct, frozen=True, kw_only=True):
    id: str  # the answer's trace id
    replay_id: str
    scope: str  # answered from
    scopes: tuple[str, ...]  # searched
    query: str
    request: dict[str, Any]  # the question's request fields: scope, depth, topK, generate (replay)
    status: str
    created_at: str  # ISO 8601, UTC
    created_at_ms: int
    key_name: str  # the API key's configured name, never the key
    client: str  # how the question came: "rest" (the API, the inspector) or "mcp"
    timings_ms: dict[str, float]
    evidence_status: dict[str, Any]
    response: bytes  # the whole response, trace included: zlib-compressed JSON
    cited: tuple[Span, ...]  # the citations' source spans
    used: tuple[Span, ...]  # the context pack's fragments

    def properties(self) -> dict[str, Any]:
        """The node's properties (Neo4j holds no maps: those are JSON text)."""
        return {
            "id": self.id, "replayId": self.replay_id, "scope": self.scope,
            "scopes": list(self.scopes), "query": self.query, "status": self.status,
            "request": _json(self.request), "createdAt": self.created_at,
            "createdAtMs": self.created_at_ms, "keyName": self.key_name,
            "client": self.client,
            "timingsMs": _json(self.timings_ms), "evidenceStatus": _json(self.evidence_status),
            "citationCount": len(self.cited), "response": self.response,
        }  # fmt: skip


def build_record(
    response: Mapping[str, Any],
    *,
    request: Mapping[str, Any],
    scopes: Sequence[str],
    key_name: str,
    created_at_ms: int,
    max_response_bytes: int,
    client: str = "rest",
    encoded: bytes | None = None,
) -> AnswerRecord:
    """`request`: the question's fields as asked (query, scope, depth, topK, generate);
    `encoded`: the response's JSON when the caller has it already."""
    trace = response["trace"]
    encoded = msgspec.json.encode(response) if encoded is None else encoded
    blob = zlib.compress(encoded, _COMPRESSION_LEVEL)
    if len(blob) > max_response_bytes:
        slim = {k: trace[k] for k in ("traceId", "plan", "timingsMs") if k in trace}
        kept = {**response, "trace": {**slim, **_TRACE_OMITTED}}
        blob = zlib.compress(msgspec.json.encode(kept), _COMPRESSION_LEVEL)
    pack = trace.get("ragContextPack") or {}
    return AnswerRecord(
        id=str(trace["traceId"]),
        replay_id=str(pack.get("replayId") or ""),
        scope=str(trace["plan"]["scope"]),
        scopes=tuple(scopes),
        query=str(request["query"]),
        request={k: request.get(k) for k in ("scope", "depth", "topK", "generate")},
        status=str(response["status"]),
        created_at=iso_time(created_at_ms),
        created_at_ms=created_at_ms,
        key_name=key_name,
        client=client,
        timings_ms={str(k): float(v) for k, v in (trace.get("timingsMs") or {}).items()},
        evidence_status=dict(response.get("evidenceStatus") or {}),
        response=blob,
        cited=tuple(
            Span(
                c["documentId"],
                int(c["startOffset"]),
                int(c["endOffset"]),
                version=c.get("documentVersion"),
            )
            for c in response.get("citations") or ()
        ),
        used=tuple(
            Span(f["documentId"], int(f["startOffset"]), int(f["endOffset"]), str(f["role"]))
            for f in pack.get("fragments") or ()
        ),
    )


def record_response(blob: bytes) -> dict[str, Any]:
    """The stored response (its `trace` included), as the API returned it."""
    response: dict[str, Any] = msgspec.json.decode(zlib.decompress(blob))
    return response


def _json(value: Any) -> str:
    return msgspec.json.encode(value).decode()


def iso_time(epoch_ms: int) -> str:
    """ISO 8601 in UTC with milliseconds, as records keep their times."""
    seconds, millis = divmod(epoch_ms, 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{millis:03d}Z"
