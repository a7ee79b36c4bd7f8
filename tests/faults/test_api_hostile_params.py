"""Hostile payloads in every path and query parameter of the REST API (issue 8).

The routes and their parameters come from the app's own OpenAPI document, so a new route or
parameter is attacked without editing this file (a new *required* parameter, or a new request
body, needs a harmless baseline value below and the test says so). Each payload goes into one
parameter at a time, properly URL-encoded, with a key that may write everywhere.

Expected: no 5xx; every 4xx is problem+json; DELETE of a hostile id is 404; no write statement
runs at all (every statement a request ran is recorded; an answer's record is written after it
by the service's record writer, with fixed statements and the question as a parameter); a
sentinel scope is unchanged; and no scope that existed before the run (nor the nodes without a
scope) lost a node or relationship.
Whole-database counts are not compared exactly: other clients (tests run beside this one) may
write to a shared test database meanwhile; scopes that grew, appeared or vanished are reported.
"""

from __future__ import annotations

import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import quote

import msgspec
import pytest
from litestar.testing import TestClient

from ingest.embeddings import SentenceTransformerEmbedder
from service.api import create_app
from service.api.auth import hash_key
from service.api.state import AppResources
from service.db import Graph
from service.db.graph import CypherCall
from service.settings import ApiKey, Settings
from tests.faults.support import scope_state
from tests.faults.test_hostile_input import PAYLOADS as CYPHER_PAYLOADS
from tests.integration.conftest import delete_scope
from tests.integration.test_api_flows import HOSTILE as API_PAYLOADS

KEY = "key-hostile-admin"
MAX_REQUESTS = 2400  # the bound of one run (payloads x parameters; the ops routes added ~180)
# Values that attack the parser of a typed parameter or the router rather than Cypher.
PARAMETER_PAYLOADS = [
    "-1",
    "0",
    "99999999999999999999999999",
    "1e309",
    "NaN",
    "\x00",
    "../../../etc/passwd",
    "%2e%2e%2f%00",  # already percent-encoded: must arrive as these literal characters
    "d_0000000000000000' OR 1=1 //",
    "t_0000000000000000\r\nX-Injected: 1",
    "x" * 3000,
]
PAYLOADS = list(dict.fromkeys([*CYPHER_PAYLOADS, *API_PAYLOADS, *PARAMETER_PAYLOADS]))

STONE = """---
id: sentinel-stone
title: Sentinel stone
aliases: [boundary stone]
relations:
  - {type: CONTRASTS_WITH, target: sentinel-post}
---
# Sentinel stone

A sentinel stone marks the edge of a field and is never moved by hostile input.
"""
POST = """---
id: sentinel-post
title: Sentinel post
---
# Sentinel post

A sentinel post is a wooden marker beside the stone.
"""


class RecordingResources(AppResources):
    """Records every statement any request runs (the no-write check)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.recorded: list[CypherCall] = []

    def request_graph(self, on_call: Callable[[CypherCall], None] | None = None) -> Any:
        def record(call: CypherCall) -> None:
            self.recorded.append(call)
            if on_call is not None:
                on_call(call)

        return super().request_graph(record)


@pytest.fixture
def sentinel_api(
    settings: Settings, graph: Graph, embedder: SentenceTransformerEmbedder
) -> Iterator[tuple[TestClient[Any], RecordingResources, str]]:
    scope = f"sentinel-{uuid.uuid4().hex[:8]}"
    api = msgspec.structs.replace(
        settings.api, dev_mode=False, rate_limit_requests=0,  # 0: no rate limit in this test
        keys=(ApiKey(name="hostile-admin", sha256=hash_key(KEY), scopes=("*",), write=True),),
    )  # fmt: skip
    # A change stream opened by a harmless parameter value ends after a second, not an hour.
    versions = msgspec.structs.replace(settings.versions, max_stream_s=1.0, feed_poll_s=0.2)
    test_settings = msgspec.structs.replace(settings, api=api, versions=versions)
    resources = RecordingResources(test_settings, graph=graph, embedder=embedder)
    try:
        with TestClient(create_app(test_settings, resources)) as client:
            for name, text in (("post.md", POST), ("stone.md", STONE)):
                response = client.post(
                    "/v1/documents", headers={"X-API-Key": KEY}, data={"scope": scope},
                    files={"file": (name, text.encode(), "text/markdown")},
                )  # fmt: skip
                assert response.status_code == 201, response.text
            yield client, resources, scope
    finally:
        delete_scope(graph, scope)


def _counts_by_scope(graph: Graph) -> dict[str, tuple[int, int]]:
    """(nodes, relationships starting there) per scope of the whole database; '' = no scope.
    Inline on purpose: a whole-database audit of the test, not a statement of the service."""
    nodes, _, _ = graph.driver.execute_query(
        "MATCH (n) RETURN coalesce(n.scope, '') AS scope, count(*) AS c",
        database_=graph.database,
    )
    relationships, _, _ = graph.driver.execute_query(
        "MATCH (n)-[r]->() RETURN coalesce(n.scope, '') AS scope, count(r) AS c",
        database_=graph.database,
    )
    by_scope = {str(r["scope"]): (int(r["c"]), 0) for r in nodes}
    for r in relationships:
        by_scope[str(r["scope"])] = (by_scope.get(str(r["scope"]), (0, 0))[0], int(r["c"]))
    return by_scope


def _operations(client: TestClient[Any]) -> list[tuple[str, str, dict[str, Any]]]:
    schema = client.get("/schema/openapi.json").json()
    return [
        (method.upper(), path, operation)
        for path, item in schema["paths"].items()
        for method, operation in item.items()
        if method in ("get", "post", "put", "patch", "delete")
    ]


def _requests(
    operations: list[tuple[str, str, dict[str, Any]]],
    baseline: dict[str, str],
    bodies: dict[tuple[str, str], dict[str, Any]],
) -> list[tuple[str, str, str, str, dict[str, str], dict[str, Any] | None]]:
    """(method, route, parameter, url, query, body): one payload in one parameter each."""
    planned = []
    for method, route, operation in operations:
        parameters = operation.get("parameters", [])
        if not any(p["in"] in ("path", "query") for p in parameters):
            continue  # a header (If-Match) is no target here
        body = None
        if "requestBody" in operation:
            assert (method, route) in bodies, f"{method} {route}: add a harmless body to BODIES"
            body = bodies[(method, route)]
        for target in parameters:
            if target["in"] not in ("path", "query"):
                continue
            for payload in PAYLOADS:
                if target["in"] == "path" and payload == "":
                    continue  # an empty segment addresses another route, not this parameter
                values: dict[str, str] = {}
                for parameter in parameters:
                    name = parameter["name"]
                    if name == target["name"]:
                        values[name] = payload
                    elif parameter["in"] == "path" or parameter.get("required"):
                        assert name in baseline, f"{method} {route}: add a baseline for {name}"
                        values[name] = baseline[name]
                url = route
                query: dict[str, str] = {}
                for parameter in parameters:
                    name = parameter["name"]
                    if name not in values:
                        continue
                    if parameter["in"] == "path":
                        url = url.replace("{" + name + "}", quote(values[name], safe=""))
                    else:
                        query[name] = values[name]
                planned.append((method, route, target["name"], url, query, body))
    return planned


def test_hostile_path_and_query_parameters(
    graph: Graph, sentinel_api: tuple[TestClient[Any], RecordingResources, str]
) -> None:
    client, resources, scope = sentinel_api
    documents = client.get("/v1/documents", params={"scope": scope}, headers={"X-API-Key": KEY})
    document_id = documents.json()["items"][0]["id"]
    baseline = {"document_id": document_id, "point_id": "sentinel-stone", "q": "sentinel",
                "scope": scope, "trace_id": "t_0000000000000000",
                "scope_name": scope, "section": "contradictions",
                "draft_id": "esc_0000000000000000",
                "ticket_id": "tkt_0000000000000000"}  # fmt: skip
    question = {"query": "what is a sentinel stone?", "scope": scope}
    bodies = {
        ("POST", "/v1/query"): question,
        ("POST", "/v1/query/stream"): question,
        ("POST", "/v1/escalations/{draft_id}/confirm"): {"draft": {}},
        ("POST", "/v1/escalations/tickets/{ticket_id}/resolve"): {"resolution": "x"},
        ("POST", "/v1/reviews"): {"documents": [document_id], "questions": [question["query"]]},
    }
    planned = _requests(_operations(client), baseline, bodies)
    parameters = {(route, method, name) for method, route, name, *_ in planned}
    assert len(planned) <= MAX_REQUESTS, len(planned)
    assert {("/v1/documents/{document_id}", "DELETE", "document_id"),
            ("/v1/knowledge-points", "GET", "q"),
            ("/v1/documents", "GET", "cursor")} <= parameters  # fmt: skip

    sentinel_before = scope_state(graph, scope)
    counts_before = _counts_by_scope(graph)
    resources.recorded.clear()
    statuses: Counter[int] = Counter()
    failures = []
    started = time.perf_counter()
    for method, route, name, url, query, body in planned:
        response = client.request(method, url, params=query, json=body,
                                  headers={"X-API-Key": KEY})  # fmt: skip
        statuses[response.status_code] += 1
        where = f"{method} {route} {name}={query.get(name, url)!r}"
        if response.status_code >= 500:
            failures.append(f"{where}: {response.status_code} {response.text[:300]}")
        elif response.status_code >= 400 and not response.headers.get(
            "content-type", ""
        ).startswith("application/problem+json"):
            failures.append(f"{where}: {response.status_code} is not problem+json")
        elif method == "DELETE" and response.status_code != 404:
            failures.append(f"{where}: DELETE answered {response.status_code}, not 404")
    elapsed = time.perf_counter() - started
    counts_after = _counts_by_scope(graph)

    assert failures == [], "\n".join(failures)
    writes = {c.statement for c in resources.recorded
              if graph.registry.get(c.statement).mode != "read"}  # fmt: skip
    assert resources.recorded and writes == set(), writes  # reads ran, and nothing else
    assert scope_state(graph, scope) == sentinel_before
    # Other clients may write to a shared test database meanwhile: a pre-existing scope
    # may grow, but none may lose anything (what an injected DELETE would do); the requests
    # themselves ran no write statement at all (checked above).
    kept = set(counts_before) & set(counts_after)
    lost = {
        s: (counts_before[s], counts_after[s])
        for s in kept
        if any(a < b for a, b in zip(counts_after[s], counts_before[s], strict=True))
    }
    assert lost == {}, lost
    grew = sorted(s for s in kept if counts_before[s] != counts_after[s])
    others = sorted(set(counts_before) ^ set(counts_after))
    total = [sum(v[i] for v in counts_after.values()) for i in (0, 1)]
    server_errors = sum(n for status, n in statuses.items() if status >= 500)
    print(
        f"\nhostile api: {len(PAYLOADS)} payloads x {len(parameters)} parameters = "
        f"{len(planned)} requests in {elapsed:.1f} s, {server_errors} 5xx, "
        f"statuses {dict(sorted(statuses.items()))}, {len(resources.recorded)} statements all "
        f"reads, counts unchanged in {len(kept) - len(grew)} of {len(kept)} scopes, none lost "
        f"({total[0]} nodes, {total[1]} relationships; other writers meanwhile: {len(grew)} "
        f"scopes grew, {len(others)} came or went)"
    )
