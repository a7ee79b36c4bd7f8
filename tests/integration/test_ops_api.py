"""The operations routes against the real Neo4j (docs/operations.md, "Operations API"): answers
asked through POST /v1/query are counted by status, stage latency, cited document and gap in
the rollups the record writer keeps; a key sees only its scopes; an empty scope answers zeros;
buckets cover the window; bad parameters are 400 problems; a failed answer (a 5xx) leaves a
failure record with its stage and type, and a 4xx leaves none."""

from __future__ import annotations

import itertools
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
import pytest
from litestar.testing import TestClient
from neo4j.exceptions import ServiceUnavailable

from ingest.embeddings import SentenceTransformerEmbedder
from service.api import create_app
from service.api.auth import hash_key
from service.api.state import AppResources
from service.db import Graph
from service.ops import read_gaps, window_of
from service.question import runner
from service.settings import ApiKey, ApiSettings, OpsSettings, RecordSettings, Settings
from tests.integration.conftest import delete_scope

SCOPE = f"ops-{uuid.uuid4().hex[:8]}"
OTHER = f"ops-other-{uuid.uuid4().hex[:8]}"
EMPTY = f"ops-empty-{uuid.uuid4().hex[:8]}"
KEYS = {  # name -> (key, scopes, write)
    "keeper": ("key-ops-keeper", (SCOPE, OTHER, EMPTY), True),
    "narrow": ("key-ops-narrow", (SCOPE,), True),
}
BASALT = """# Basalt

Basalt is a fine-grained volcanic rock formed from rapidly cooled lava.

## Uses

Basalt is crushed for road construction and railway ballast.
"""
GRANITE = """# Granite

Granite is a coarse-grained igneous rock rich in quartz and feldspar.
"""
PUMICE = """# Pumice

Pumice is a light volcanic glass full of gas bubbles; it floats on water.
"""
ANSWERABLE = ("What is basalt?", "What is basalt used for?")
GAP = ("What is the boiling point of mercury?", "Mercury boiling point?")
FLUSH_S = 30.0
MAX_LIMIT = 5
API_MAX_QUERY_CHARS = 5000  # above the pipeline's own 2000: the answer path refuses, not the API


def headers(name: str) -> dict[str, str]:
    return {"X-API-Key": KEYS[name][0]}


@pytest.fixture(scope="module")
def ops(
    settings: Settings, graph: Graph, embedder: SentenceTransformerEmbedder
) -> Iterator[tuple[TestClient[Any], AppResources, dict[str, str]]]:
    """An app with two scopes asked: SCOPE (answers and gaps) and OTHER (one answer); EMPTY
    holds a document nobody asked about. Yields the client, its resources and the statuses."""
    api = ApiSettings(keys=tuple(ApiKey(name=n, sha256=hash_key(k), scopes=s, write=w)
                                 for n, (k, s, w) in KEYS.items()),
                      max_query_chars=API_MAX_QUERY_CHARS)  # fmt: skip
    test_settings = msgspec.structs.replace(
        settings, api=api, records=RecordSettings(), ops=OpsSettings(max_limit=MAX_LIMIT)
    )
    resources = AppResources(test_settings, graph=graph, embedder=embedder)
    try:
        with TestClient(create_app(test_settings, resources)) as client:
            for scope, name, text in ((SCOPE, "basalt.md", BASALT), (SCOPE, "granite.md", GRANITE),
                                      (OTHER, "basalt.md", BASALT),
                                      (EMPTY, "pumice.md", PUMICE)):  # fmt: skip
                files = {"file": (name, text.encode(), "text/markdown")}
                response = client.post("/v1/documents", files=files, data={"scope": scope},
                                       headers=headers("keeper"))  # fmt: skip
                assert response.status_code == 201, response.text
            statuses = {}
            for scope, query in [*((SCOPE, q) for q in ANSWERABLE + GAP), (OTHER, ANSWERABLE[0])]:
                response = client.post("/v1/query", json={"query": query, "scope": scope},
                                       headers=headers("keeper"))  # fmt: skip
                assert response.status_code == 200, response.text
                statuses[f"{scope} {query}"] = response.json()["status"]
            assert resources.records is not None and resources.records.flush(FLUSH_S)
            yield client, resources, statuses
    finally:
        for scope in (SCOPE, OTHER, EMPTY):
            delete_scope(graph, scope)


def get(client: TestClient[Any], route: str, key: str = "keeper", **params: Any) -> Any:
    response = client.get(f"/v1/ops/{route}", params=params, headers=headers(key))
    assert response.status_code == 200, response.text
    return response.json()


def test_summary_counts_the_answers_by_status_stage_and_cited_document(
    ops: tuple[TestClient[Any], AppResources, dict[str, str]],
) -> None:
    client, _, statuses = ops
    asked = [s for k, s in statuses.items() if k.startswith(SCOPE + " ")]
    assert asked.count("answered") >= 2 and "abstained" in asked, statuses
    body = get(client, "summary", scope=SCOPE)
    expected = {status: asked.count(status) for status in set(asked)}
    assert body["scope"] == SCOPE and body["totals"]["byStatus"] == expected
    assert body["totals"]["answers"] == len(asked) == sum(b["answers"] for b in body["buckets"])
    assert body["totals"]["abstentionRate"] == round(asked.count("abstained") / len(asked), 4)
    stages = {row["stage"]: row for row in body["latencyMs"]}
    assert {"total", "retrieval", "plan"} <= set(stages), stages
    total = stages["total"]
    assert total["answers"] == len(asked) and 0 < total["p50"] <= total["p95"]
    assert total["p95"] >= stages["plan"]["p95"]  # the whole path is no faster than one stage
    cited = {(d["title"], d["citations"]) for d in body["topCitedDocuments"]}
    assert any(title == "Basalt" and n >= 2 for title, n in cited), cited
    never = {d["title"] for d in body["neverCitedDocuments"]}
    assert "Granite" in never and "Basalt" not in never


def test_a_key_sees_its_own_scopes_only(
    ops: tuple[TestClient[Any], AppResources, dict[str, str]],
) -> None:
    client, _, statuses = ops
    everything = get(client, "summary")["totals"]["answers"]
    narrow = get(client, "summary", key="narrow")["totals"]["answers"]
    assert everything == len(statuses) and narrow == len(statuses) - 1  # OTHER's answer hidden
    for route in ("summary", "gaps", "failures"):
        response = client.get(f"/v1/ops/{route}", params={"scope": OTHER},
                              headers=headers("narrow"))  # fmt: skip
        assert response.status_code == 404, (route, response.text)
    titles = {d["title"] for d in get(client, "summary", key="narrow")["neverCitedDocuments"]}
    assert "Pumice" not in titles  # EMPTY is not the narrow key's


def test_an_empty_scope_answers_zeros_and_lists_its_documents_never_cited(
    ops: tuple[TestClient[Any], AppResources, dict[str, str]],
) -> None:
    client, _, _ = ops
    body = get(client, "summary", scope=EMPTY, bucket="day")
    assert body["totals"] == {"answers": 0, "byStatus": {}, "abstentionRate": None,
                              "conflictRate": None}  # fmt: skip
    assert body["buckets"] and all(b["answers"] == 0 for b in body["buckets"])
    assert body["latencyMs"] == [] and body["topCitedDocuments"] == []
    assert [d["title"] for d in body["neverCitedDocuments"]] == ["Pumice"]
    assert body["tickets"] == {"opened": 0, "closed": 0}
    assert get(client, "gaps", scope=EMPTY)["gaps"] == []
    failures = get(client, "failures", scope=EMPTY)
    assert failures["byStage"] == [] and failures["recent"] == []


def test_buckets_cover_the_window_in_whole_hours_or_days(
    ops: tuple[TestClient[Any], AppResources, dict[str, str]],
) -> None:
    client, _, statuses = ops
    now = datetime.now(UTC)
    since, until = (now - timedelta(hours=2, minutes=30)).isoformat(), now.isoformat()
    hours = get(client, "summary", scope=SCOPE, since=since, until=until, bucket="hour")
    starts = [datetime.fromisoformat(b["start"]) for b in hours["buckets"]]
    assert len(starts) in (3, 4)  # 2.5 h widened to whole hours
    assert all(b - a == timedelta(hours=1) for a, b in itertools.pairwise(starts))
    assert starts[0].minute == 0 and starts[0] <= now - timedelta(hours=2, minutes=30)
    assert (
        hours["buckets"][-1]["answers"] + hours["buckets"][-2]["answers"]
        == hours["totals"]["answers"]
    )  # the answers of the last minutes fall in the newest bucket (or the one before, at :00)
    days = get(client, "summary", scope=SCOPE, since=(now - timedelta(days=3)).isoformat(),
               bucket="day")  # fmt: skip
    assert len(days["buckets"]) == 4 and days["buckets"][0]["start"].endswith("T00:00:00.000Z")
    assert days["totals"] == hours["totals"]
    before = get(client, "summary", scope=SCOPE, until=(now - timedelta(days=1)).isoformat())
    assert before["totals"]["answers"] == 0  # nothing was asked before the test
    assert sum(1 for k in statuses if k.startswith(SCOPE)) == hours["totals"]["answers"]


def test_gaps_group_wordings_of_one_question(
    ops: tuple[TestClient[Any], AppResources, dict[str, str]],
) -> None:
    client, _, statuses = ops
    unanswered = [q for q in GAP if statuses[f"{SCOPE} {q}"] in ("abstained", "partial")]
    assert len(unanswered) == 2, statuses
    gaps = get(client, "gaps", scope=SCOPE)["gaps"]
    [mercury] = [g for g in gaps if "mercury" in g["query"].lower()]
    assert mercury["asked"] == 2 and set(mercury["wordings"]) == set(GAP)
    assert mercury["query"] == GAP[1]  # the newest wording
    assert sum(mercury["byStatus"].values()) == 2 and mercury["traceId"].startswith("t_")
    assert not any("basalt" in g["query"].lower() for g in gaps if g["asked"] > 0
                   and statuses.get(f"{SCOPE} {g['query']}") == "answered")  # fmt: skip


def test_a_ticket_from_a_gap_is_counted_and_attached_to_it(
    ops: tuple[TestClient[Any], AppResources, dict[str, str]],
) -> None:
    client, _, _ = ops
    [mercury] = [g for g in get(client, "gaps", scope=SCOPE)["gaps"] if "ercury" in g["query"]]
    preview = client.post("/v1/escalations/preview", headers=headers("keeper"),
                          json={"answerId": mercury["traceId"]})  # fmt: skip
    assert preview.status_code == 201, preview.text
    draft = preview.json()
    confirmed = client.post(f"/v1/escalations/{draft['draftId']}/confirm",
                            headers=headers("keeper"), json={"draft": draft["draft"]})  # fmt: skip
    assert confirmed.status_code in (200, 201), confirmed.text
    ticket = confirmed.json()["ticketId"]
    [again] = [g for g in get(client, "gaps", scope=SCOPE)["gaps"] if "ercury" in g["query"]]
    assert again["openTickets"] == [ticket]
    assert get(client, "summary", scope=SCOPE)["tickets"]["opened"] == 1


def test_bad_parameters_are_400_problems(
    ops: tuple[TestClient[Any], AppResources, dict[str, str]],
) -> None:
    client, _, _ = ops
    for route, params in (
        ("summary", {"bucket": "week"}),
        ("failures", {"bucket": "minute"}),
        ("summary", {"since": "yesterday"}),
        ("gaps", {"until": "2026-13-40"}),
        ("summary", {"since": "2026-12-02T00:00:00Z", "until": "2026-12-01T00:00:00Z"}),
        ("summary", {"since": "2020-01-01T00:00:00Z", "until": "2026-01-01T00:00:00Z"}),
        ("summary", {"since": "2026-01-01T00:00:00Z", "until": "2026-12-01T00:00:00Z"}),  # hours
        ("gaps", {"limit": MAX_LIMIT + 1}),
        ("summary", {"limit": 0}),
        ("summary", {"scope": "no spaces allowed"}),
    ):
        response = client.get(f"/v1/ops/{route}", params=params, headers=headers("keeper"))
        assert response.status_code == 400, (route, params, response.text)
        assert response.headers["content-type"].startswith("application/problem+json")
    assert client.get("/v1/ops/summary").status_code == 401  # keyed like every route


def test_a_failed_answer_leaves_a_failure_record_and_a_refused_one_none(
    ops: tuple[TestClient[Any], AppResources, dict[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    client, resources, _ = ops

    def unavailable(*_args: Any, **_kwargs: Any) -> Any:
        raise ServiceUnavailable("Neo4j went away (test)")

    monkeypatch.setattr(runner, "plan_in_scope_words", unavailable)
    failed = client.post("/v1/query", json={"query": "What is basalt?", "scope": SCOPE},
                         headers=headers("keeper"))  # fmt: skip
    assert failed.status_code == 503, failed.text
    monkeypatch.undo()
    refused = client.post("/v1/query", json={"query": "basalt " * 400, "scope": SCOPE},
                          headers=headers("keeper"))  # fmt: skip
    assert refused.status_code == 400 and "2000 characters" in refused.text  # the caller's
    assert resources.records is not None and resources.records.flush(FLUSH_S)
    body = get(client, "failures", scope=SCOPE)
    [stage] = body["byStage"]
    assert stage == {"stage": "question.runner", "errorType": "neo4j-unavailable", "failures": 1,
                     "lastAt": body["recent"][0]["createdAt"]}  # fmt: skip
    [recent] = body["recent"]
    assert recent["traceId"] == failed.headers["x-trace-id"] and recent["status"] == 503
    assert sum(b["failures"] for b in body["buckets"]) == 1
    assert get(client, "failures", key="narrow")["byStage"] == body["byStage"]
    assert "What is basalt" not in str(body)  # no question text in failure records


def test_a_gaps_request_reads_a_bounded_number_of_rollups_and_says_so(
    ops: tuple[TestClient[Any], AppResources, dict[str, str]], graph: Graph
) -> None:
    client, resources, _ = ops
    assert get(client, "gaps", scope=SCOPE)["complete"] is True
    window = window_of(None, None, "day", resources.settings.ops, time.time_ns() // 1_000_000)
    full = read_gaps(graph, window, OpsSettings(), scope=SCOPE, scopes=None, limit=10)
    rollups = sum(len(gap.by_status) for gap in full.gaps)  # one per gap, day and status here
    bounded = read_gaps(graph, window, OpsSettings(gap_scan_rollups=rollups), scope=SCOPE,
                        scopes=None, limit=10)  # fmt: skip
    assert bounded.complete is False and bounded.gaps == full.gaps  # at the bound: not sure
    wider = read_gaps(graph, window, OpsSettings(gap_scan_rollups=rollups + 1), scope=SCOPE,
                      scopes=None, limit=10)  # fmt: skip
    assert wider.complete is True and wider.gaps == full.gaps
