"""Pure pieces of the API: Lucene for name search, cursors, upload paths, trace retention,
JSON logs, transaction metadata."""

import json
import logging
import re
from typing import Any

import msgspec
import pytest
from litestar.exceptions import HTTPException

from service.api import answers, documents, trace_store
from service.api.context import TracedGraph, trace_id_var
from service.api.cursors import decode_cursor, encode_cursor
from service.api.knowledge_points import name_lucene
from service.api.logs import JsonFormatter
from service.api.trace_store import StoredTrace, TraceStore
from service.db.cypher_registry import CypherRegistry
from service.db.graph import Graph
from service.scope import scope_key


@pytest.mark.parametrize(
    "text",
    ['water" OR scopeKey:*', "AND OR NOT", "a\\b (c) [d] {e} ~f ^g", "MATCH (n) DETACH DELETE n",
     "x:y && z || !w"],
)  # fmt: skip
def test_name_lucene_keeps_only_lower_case_words(text: str) -> None:
    lucene = name_lucene(text, ["a"])
    body = lucene.split(" ", 1)[1]
    assert lucene.startswith(f"+scopeKey:({scope_key('a')}) +(")
    assert body.endswith(")")
    inner = body[2:-1]
    for token in inner.split(" "):
        assert token.rstrip("*").isalnum() and token == token.lower(), token


def test_name_lucene_without_words_is_refused() -> None:
    with pytest.raises(HTTPException) as refused:
        name_lucene("*** ()", None)
    assert refused.value.status_code == 400


def test_name_lucene_every_scope_has_no_scope_clause() -> None:
    assert name_lucene("Water glass", None) == "+(water glass wat* glass* waterglass)".replace(
        "wat*", "water*"
    )


@pytest.mark.parametrize(
    ("shape", "key"),
    [(documents._DOCUMENT_ID, "d_0123456789abcdef0123"),
     (answers._CURSOR, "1764547200000:t_0123456789abcdef")],
)  # fmt: skip
def test_cursor_round_trip_and_rejection(shape: re.Pattern[str], key: str) -> None:
    assert decode_cursor(encode_cursor(key), shape) == key
    for bad in ("%%%", "eA", encode_cursor("' OR 1=1 //"), encode_cursor(key + "x")):
        with pytest.raises(HTTPException) as refused:
            decode_cursor(bad, shape)
        assert refused.value.status_code == 400


@pytest.mark.parametrize("path", ["a.md", "notes/b c.md", "x/y/z-1_2.md", "数据/说明.md"])
def test_upload_paths_accepted(path: str) -> None:
    assert documents._checked_path(path) == path


@pytest.mark.parametrize(
    "path",
    ["", "a.rtf", "../a.md", "a/../b.md", ".hidden.md", "a//b.md", "/abs.md", "a\\b.md",
     "a/" * 9 + "b.md", "x" * 300 + ".md", "a;MATCH (n) DELETE n.md"],
)  # fmt: skip
def test_upload_paths_refused(path: str) -> None:
    with pytest.raises(HTTPException) as refused:
        documents._checked_path(path)
    assert refused.value.status_code == 400


def _stored(trace_id: str) -> StoredTrace:
    return StoredTrace(trace_id=trace_id, scope="s", query="q", status="answered",
                       created_at="2026-01-01T00:00:00Z", trace={})  # fmt: skip


def test_trace_store_keeps_the_newest(monkeypatch: pytest.MonkeyPatch) -> None:
    store = TraceStore(max_entries=2, max_age_s=60, max_bytes=2**20)
    for n in range(3):
        store.put(_stored(f"t_{n}"))
    assert store.get("t_0") is None
    assert store.get("t_1") is not None and store.get("t_2") is not None
    now = [1000.0]
    monkeypatch.setattr(trace_store.time, "monotonic", lambda: now[0])
    store = TraceStore(max_entries=10, max_age_s=60, max_bytes=2**20)
    store.put(_stored("t_old"))
    now[0] += 30
    store.put(_stored("t_new"))
    now[0] += 31
    assert store.get("t_old") is None
    assert store.get("t_new") is not None
    assert len(store) == 1


def test_trace_store_holds_at_most_its_bytes() -> None:
    big = {"cypher": ["x" * 1000]}
    store = TraceStore(max_entries=100, max_age_s=60, max_bytes=3500)
    for n in range(5):
        store.put(msgspec.structs.replace(_stored(f"t_{n}"), trace=big))
    assert len(store) == 3 and store.bytes <= 3500  # about 1,013 bytes of JSON each
    assert store.get("t_1") is None and store.get("t_4") is not None
    store.put(msgspec.structs.replace(_stored("t_4"), trace={}))  # a trace stored again
    assert store.bytes == 2 * len(msgspec.json.encode(big)) + 2
    one = TraceStore(max_entries=100, max_age_s=60, max_bytes=10)
    one.put(msgspec.structs.replace(_stored("t_huge"), trace=big))  # the newest always stays
    assert one.get("t_huge") is not None


def test_json_log_lines_carry_the_trace_id() -> None:
    record = logging.LogRecord("kgs.api", logging.INFO, __file__, 1, "hello %s", ("you",), None)
    record.status = 201
    token = trace_id_var.set("t_00000000000000aa")
    try:
        line = json.loads(JsonFormatter().format(record))
    finally:
        trace_id_var.reset(token)
    assert line["message"] == "hello you"
    assert line["traceId"] == "t_00000000000000aa"
    assert line["status"] == 201
    assert line["level"] == "INFO"


def test_traced_graph_transactions_carry_the_trace_id(tmp_path: Any) -> None:
    base = Graph(object(), CypherRegistry({}), database="neo4j", query_timeout_s=7.0)  # type: ignore[arg-type]
    traced = TracedGraph(base, "t_00000000000000bb")
    unit: Any = traced.child()._unit(lambda tx: None, "api/document")  # type: ignore[attr-defined]
    assert unit.metadata == {"kgs.statement": "api/document", "kgs.traceId": "t_00000000000000bb"}
    assert unit.timeout == 7.0
