"""The MCP server driven by the `mcp` SDK's own client: over streamable HTTP against `/mcp` of
the real app (uvicorn in a thread, over the session's Neo4j and model), and over stdio against
a `kgs mcp` child process. The shipped knowledge base's waterglass and promptinjection folders
are ingested into scopes of their own; citations are checked against the files themselves."""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import msgspec
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult

from ingest.embeddings import SentenceTransformerEmbedder
from ingest.pipeline import IngestOptions, ingest
from service.api.auth import hash_key
from service.api.mcp.results import FOREIGN, REMOVED
from service.api.state import AppResources
from service.db import Graph
from service.settings import ApiKey, ApiSettings, Settings, project_root
from tests.faults.test_prompt_injection import CASES, _attack, _relayed
from tests.integration.conftest import delete_scope
from tests.integration.served import serve_app

SHIPPED = project_root() / "knowledge_base"
WATER = f"mcp-water-{uuid.uuid4().hex[:8]}"
HOSTILE = f"mcp-hostile-{uuid.uuid4().hex[:8]}"
OTHER = f"mcp-other-{uuid.uuid4().hex[:8]}"
KEYS = {  # name -> (key, scopes)
    "reader": ("mcp-key-reader", (WATER, HOSTILE)),
    "outsider": ("mcp-key-outsider", (OTHER,)),
}
TOOLS = {"ask", "search", "get_document", "knowledge_point", "list_scopes", "escalation_preview"}
CALL_TIMEOUT_S = 180.0  # an answer on 2 busy cores


def _keys() -> tuple[ApiKey, ...]:
    return tuple(ApiKey(name=n, sha256=hash_key(k), scopes=s, write=False)
                 for n, (k, s) in KEYS.items())  # fmt: skip


@pytest.fixture(scope="module")
def scopes(
    settings: Settings, graph: Graph, embedder: SentenceTransformerEmbedder,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Path]:  # fmt: skip
    root = tmp_path_factory.mktemp("mcp-kb")
    shutil.copytree(SHIPPED / "waterglass", root / WATER)
    shutil.copytree(SHIPPED / "promptinjection", root / HOSTILE)
    (root / OTHER).mkdir()
    (root / OTHER / "vault.md").write_text("# Vault\n\nThe vault code is quasar nine.\n")
    try:
        assert ingest(graph, embedder, root, IngestOptions(), settings.ingest).added
        yield root
    finally:
        for scope in (WATER, HOSTILE, OTHER):
            delete_scope(graph, scope)


@pytest.fixture(scope="module")
def api(
    settings: Settings, graph: Graph, embedder: SentenceTransformerEmbedder, scopes: Path
) -> Iterator[str]:
    served = msgspec.structs.replace(
        settings, api=ApiSettings(keys=_keys(), answer_processes=0)
    )  # threads: the answer pool has tests of its own
    with serve_app(served, AppResources(served, graph=graph, embedder=embedder)) as url:
        yield url


def _http(url: str, key: str | None) -> Any:
    headers = {"X-API-Key": key} if key else {}
    client = httpx2.AsyncClient(headers=headers, timeout=CALL_TIMEOUT_S)
    return Client(streamable_http_client(f"{url}/mcp", http_client=client))


def _run(url: str, key: str | None, session: Callable[[Client], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        async with _http(url, key) as client:
            return await session(client)

    return anyio.run(main)


def _body(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content
    if result.structured_content is not None:
        return dict(result.structured_content)
    return dict(json.loads(result.content[0].text))  # type: ignore[union-attr]


def _text(result: CallToolResult) -> str:
    """Everything a result carries, as a calling model would read it."""
    return " ".join(getattr(c, "text", "") for c in result.content) + json.dumps(
        result.structured_content or {}, ensure_ascii=False
    )


def _source(root: Path, path: str) -> str:
    return (root / path).read_text(encoding="utf-8")


def test_tools_are_listed_with_schemas_and_none_confirms(api: str) -> None:
    async def session(client: Client) -> Any:
        return (await client.list_tools()).tools

    tools = _run(api, KEYS["reader"][0], session)
    assert {t.name for t in tools} == TOOLS
    for tool in tools:
        assert tool.description and tool.input_schema["type"] == "object"
        assert "confirm" not in tool.name
    ask = next(t for t in tools if t.name == "ask")
    assert ask.input_schema["required"] == ["question"]


def test_ask_cites_exact_quotes_and_is_recorded_as_mcp(api: str, scopes: Path) -> None:
    async def session(client: Client) -> Any:
        return await client.call_tool("ask", {"question": "what is water glass?", "scope": WATER})

    body = _body(_run(api, KEYS["reader"][0], session))
    assert body["status"] == "answered" and "sodium silicate" in body["answer"].lower()
    assert body["citations"] and body["traceId"].startswith("t_")
    for citation in body["citations"]:
        source = _source(scopes, citation["path"])
        assert source[citation["startOffset"] : citation["endOffset"]] == citation["quote"]
        assert citation["scope"] == WATER and citation["startLine"] >= 1
    # The answer record names its client.
    deadline = time.monotonic() + 30
    while True:
        listed = httpx.get(f"{api}/v1/answers", params={"scope": WATER},
                           headers={"X-API-Key": KEYS["reader"][0]}, timeout=30).json()  # fmt: skip
        mine = [r for r in listed["items"] if r["traceId"] == body["traceId"]]
        if mine or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert mine and mine[0]["client"] == "mcp"


def test_search_document_point_and_scopes_match_the_sources(api: str, scopes: Path) -> None:
    async def session(client: Client) -> dict[str, Any]:
        return {
            "search": await client.call_tool(
                "search", {"query": "what is water glass used for", "scope": WATER, "limit": 3}
            ),
            "scopes": await client.call_tool("list_scopes", {}),
            "point": await client.call_tool("knowledge_point", {"point": "water glass"}),
            "resources": await client.list_resources(),
        }

    got = _run(api, KEYS["reader"][0], session)
    found = _body(got["search"])
    assert found["scope"] == WATER and 1 <= len(found["results"]) <= 3 and found["untrusted"]
    for result in found["results"]:
        source = _source(scopes, result["path"])[result["startOffset"] : result["endOffset"]]
        # A sentence in neither the query's language nor its page's is withheld (the page
        # is bilingual), as the answer path's release withholds it.
        assert source == result["text"] or (result["removed"] and FOREIGN in result["text"])
        assert result["channelRanks"] and result["score"] > 0
    assert any(not r["removed"] for r in found["results"])
    listed = {s["scope"]: s["documents"] for s in _body(got["scopes"])["scopes"]}
    assert listed == {WATER: len(list((scopes / WATER).glob("*.md"))),
                      HOSTILE: len(list((scopes / HOSTILE).glob("*.md")))}  # fmt: skip
    point = _body(got["point"])
    assert point["scope"] == WATER and point["degree"]["total"] >= 1 and point["documents"]
    uris = {str(r.uri) for r in got["resources"].resources}
    assert f"kgs://{WATER}/waterglass.md" in uris and not any(OTHER in u for u in uris)

    first = found["results"][0]

    async def read(client: Client) -> dict[str, Any]:
        by_path = await client.call_tool("get_document", {"document": first["path"],
                                                          "scope": WATER})  # fmt: skip
        by_id = await client.call_tool("get_document", {"document": first["documentId"],
                                                        "from_paragraph": 1})  # fmt: skip
        resource = await client.read_resource(f"kgs://{WATER}/waterglass.md")
        return {"path": by_path, "id": by_id, "resource": resource}

    docs = _run(api, KEYS["reader"][0], read)
    whole, rest = _body(docs["path"]), _body(docs["id"])
    source = _source(scopes, first["path"])
    assert whole["untrusted"] and whole["fromParagraph"] == 0 and whole["nextParagraph"] is None
    for paragraph in whole["paragraphs"]:
        assert source[paragraph["startOffset"] : paragraph["endOffset"]] == paragraph["text"]
    assert rest["paragraphs"] == whole["paragraphs"][1:]
    text = docs["resource"].contents[0].text
    assert "sodium silicate" in text.lower()


def test_a_key_without_the_scope_gets_an_error_and_no_text(api: str, scopes: Path) -> None:
    outsider = KEYS["outsider"][0]

    async def session(client: Client) -> dict[str, Any]:
        return {
            "ask": await client.call_tool("ask", {"question": "what is water glass?",
                                                  "scope": WATER}),
            "search": await client.call_tool("search", {"query": "water glass",
                                                        "scope": WATER}),
            "document": await client.call_tool("get_document", {"document": "waterglass.md",
                                                                "scope": WATER}),
            "scopes": await client.call_tool("list_scopes", {}),
            "point": await client.call_tool("knowledge_point", {"point": "water glass"}),
        }  # fmt: skip

    got = _run(api, outsider, session)
    for name in ("ask", "search", "document", "point"):
        assert got[name].is_error, name
        said = _text(got[name]).lower()
        assert "404" in said and "silicate" not in said and "water glass is" not in said, said
    assert [s["scope"] for s in _body(got["scopes"])["scopes"]] == [OTHER]
    # Without a key the mount answers 401 before any MCP message is read.
    response = httpx.post(f"{api}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                          headers={"Accept": "application/json, text/event-stream"})  # fmt: skip
    assert response.status_code == 401
    assert response.headers["content-type"].startswith("application/problem+json")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.file)
def test_a_hostile_pages_instruction_never_reaches_a_result(api: str, case: Any) -> None:
    async def session(client: Client) -> list[CallToolResult | Any]:
        return [
            await client.call_tool("ask", {"question": case.question, "scope": HOSTILE}),
            await client.call_tool("search", {"query": case.question, "scope": HOSTILE}),
            await client.call_tool("get_document", {"document": case.file, "scope": HOSTILE}),
            await client.read_resource(f"kgs://{HOSTILE}/{case.file}"),
        ]

    ask, search, document, resource = _run(api, KEYS["reader"][0], session)
    assert _body(ask)["answer"]
    texts = [_text(ask), _text(search), _text(document), resource.contents[0].text]
    for said in texts:
        assert case.anchor not in said and not _relayed(case, said), (case.file, said[:400])
    # The output the attack demands, in any text a result carries (a marker like "^\s*\{" is
    # about the text itself, not the result's JSON around it).
    carried = [_body(ask)["answer"], resource.contents[0].text,
               *(r["text"] for r in _body(search)["results"]),
               *(p["text"] for p in _body(document)["paragraphs"])]  # fmt: skip
    for text in carried:
        assert not (case.marker and re.search(case.marker, text)), (case.file, text)
    assert REMOVED in _text(document) and REMOVED in resource.contents[0].text
    assert _attack(case) not in texts[2]


def test_malformed_arguments_are_tool_errors_and_the_server_goes_on(api: str) -> None:
    bad = [
        ("ask", {}),
        ("ask", {"question": 5}),
        ("ask", {"question": ""}),
        ("ask", {"question": "x", "depth": "sideways"}),
        ("ask", {"question": "x" * 5000, "scope": WATER}),
        ("ask", {"question": "x", "scope": "no such/scope!"}),
        ("search", {"query": "glass", "limit": 0}),
        ("get_document", {"document": "waterglass.md"}),  # two readable scopes: name one
        ("get_document", {"document": "d_0123456789abcdef", "version": 0}),
        ("get_document", {"document": "../../etc/passwd", "scope": WATER}),
        ("knowledge_point", {"point": "no such point whatsoever", "scope": WATER}),
        ("escalation_preview", {"answer_id": "t_0000000000000000"}),
        ("no_such_tool", {}),
    ]

    async def session(client: Client) -> tuple[list[CallToolResult], CallToolResult]:
        results = [await client.call_tool(name, arguments) for name, arguments in bad]
        return results, await client.call_tool("list_scopes", {})

    results, after = _run(api, KEYS["reader"][0], session)
    for (name, arguments), result in zip(bad, results, strict=True):
        assert result.is_error, (name, arguments)
        assert "Traceback" not in _text(result)
    assert not after.is_error


def test_escalation_preview_drafts_and_leaves_confirmation_to_a_person(api: str) -> None:
    async def session(client: Client) -> tuple[CallToolResult, CallToolResult]:
        gap = await client.call_tool(
            "ask", {"question": "what is the melting point of tungsten carbide?", "scope": WATER}
        )
        preview = await client.call_tool("escalation_preview", {
            "answer_id": _body(gap)["traceId"], "note": "customers ask this",
        })  # fmt: skip
        return gap, preview

    gap, preview = _run(api, KEYS["reader"][0], session)
    assert _body(gap)["status"] in {"abstained", "partial"} and _body(gap)["escalation"]
    draft = _body(preview)
    assert draft["status"] == "pending" and draft["ticketId"] is None
    assert draft["draft"]["note"] == "customers ask this" and "confirmation" in draft
    stored = httpx.get(f"{api}/v1/escalations/drafts/{draft['draftId']}",
                       headers={"X-API-Key": KEYS["reader"][0]}, timeout=30).json()  # fmt: skip
    assert stored["status"] == "pending" and stored["ticketId"] is None


def test_rate_limits_apply_over_http(
    settings: Settings, graph: Graph, embedder: SentenceTransformerEmbedder, scopes: Path
) -> None:
    limited = msgspec.structs.replace(settings, api=ApiSettings(
        keys=_keys(), answer_processes=0, rate_limit_requests=2, rate_limit_window_s=600.0,
    ))  # fmt: skip
    with serve_app(limited, AppResources(limited, graph=graph, embedder=embedder)) as url:
        message = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
        answers = [httpx.post(f"{url}/mcp", json=message, timeout=30, headers={
            "X-API-Key": KEYS["reader"][0], "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2025-06-18",
        }) for _ in range(3)]  # fmt: skip
        assert [a.status_code for a in answers[:2]] != [429, 429]
        assert answers[2].status_code == 429 and int(answers[2].headers["Retry-After"]) > 0


def test_stdio_serves_the_same_tools_with_the_key_from_the_environment(
    cli_env: dict[str, str], scopes: Path
) -> None:
    env = {
        **cli_env,
        "KGS_API_KEYS": json.dumps([msgspec.to_builtins(k) for k in _keys()]),
        "KGS_MCP_API_KEY": KEYS["reader"][0],
        "KGS_API_RATE_LIMIT_REQUESTS": "5",
        "KGS_API_RATE_LIMIT_WINDOW_S": "600",
    }
    kgs = str(Path(sys.executable).with_name("kgs"))
    server = StdioServerParameters(command=kgs, args=["mcp"], env=env,
                                   cwd=str(project_root()))  # fmt: skip

    async def main() -> dict[str, Any]:
        async with Client(server, read_timeout_seconds=CALL_TIMEOUT_S) as client:
            tools = {t.name for t in (await client.list_tools()).tools}
            answer = await client.call_tool("ask", {"question": "what is water glass?",
                                                    "scope": WATER})  # fmt: skip
            outside = await client.call_tool("search", {"query": "vault", "scope": OTHER})
            calls = [await client.call_tool("list_scopes", {}) for _ in range(4)]
            return {"tools": tools, "answer": answer, "outside": outside, "calls": calls}

    got = anyio.run(main)
    assert got["tools"] == TOOLS
    body = _body(got["answer"])
    assert body["status"] == "answered"
    for citation in body["citations"]:
        source = _source(scopes, citation["path"])
        assert source[citation["startOffset"] : citation["endOffset"]] == citation["quote"]
    assert got["outside"].is_error and "quasar" not in _text(got["outside"])
    # Five calls per window: the ask, the search, then three list_scopes pass; the fourth not.
    assert [c.is_error for c in got["calls"]] == [False, False, False, True]
    assert "rate limit" in _text(got["calls"][-1])


def test_stdio_without_a_key_refuses_every_call(cli_env: dict[str, str], scopes: Path) -> None:
    env = {**cli_env, "KGS_API_KEYS": json.dumps([msgspec.to_builtins(k) for k in _keys()])}
    env.pop("KGS_MCP_API_KEY", None)
    env.pop("KGS_API_DEV_MODE", None)
    kgs = str(Path(sys.executable).with_name("kgs"))
    server = StdioServerParameters(command=kgs, args=["mcp"], env=env, cwd=os.getcwd())

    async def main() -> CallToolResult:
        async with Client(server, read_timeout_seconds=CALL_TIMEOUT_S) as client:
            return await client.call_tool("list_scopes", {})

    refused = anyio.run(main)
    assert refused.is_error and "API key" in _text(refused) and WATER not in _text(refused)
