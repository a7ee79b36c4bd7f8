"""Answer records through the API against the real Neo4j: every answer is stored with its
compressed trace and links to the paragraphs it cited and used; a trace is read back from the
record by a replica that did not answer (another AppResources, its own in-memory traces); a
change of a cited document marks the record stale; retention deletes by age and by count; the
compact evidence status comes with trace=false."""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from litestar.testing import TestClient

from ingest.embeddings import SentenceTransformerEmbedder
from service.api import create_app
from service.api.auth import hash_key
from service.api.state import AppResources
from service.db import Graph
from service.records import (
    RecordWriter,
    apply_retention,
    build_record,
    read_record,
    store_record,
)
from service.settings import ApiKey, ApiSettings, RecordSettings, Settings
from tests.integration.conftest import delete_scope

SCOPE = f"records-{uuid.uuid4().hex[:8]}"
OTHER = f"records-other-{uuid.uuid4().hex[:8]}"
KEYS = {  # name -> (key, scopes, write)
    "editor": ("key-records-editor", (SCOPE,), True),
    "outsider": ("key-records-outsider", (OTHER,), False),
}
BASALT = """# Basalt

Basalt is a fine-grained volcanic rock formed from rapidly cooled lava.

## Uses

Basalt is crushed for road construction and railway ballast.
"""
BASALT_CHANGED = BASALT.replace("railway ballast", "garden paths")
QUESTION = "what is basalt?"
FLUSH_S = 30.0


def _headers(name: str) -> dict[str, str]:
    return {"X-API-Key": KEYS[name][0]}


def _app(settings: Settings, graph: Graph, embedder: SentenceTransformerEmbedder) -> AppResources:
    api = ApiSettings(keys=tuple(ApiKey(name=n, sha256=hash_key(k), scopes=s, write=w)
                                 for n, (k, s, w) in KEYS.items()))  # fmt: skip
    records = RecordSettings(metric_interval_s=0.0)  # /metrics reads the records every time
    test_settings = msgspec.structs.replace(settings, api=api, records=records)
    return AppResources(test_settings, graph=graph, embedder=embedder)


@pytest.fixture(scope="module")
def replicas(
    settings: Settings, graph: Graph, embedder: SentenceTransformerEmbedder
) -> Iterator[tuple[TestClient[Any], TestClient[Any], AppResources]]:
    """Two apps on one Neo4j, as two replicas: each has its own in-memory traces."""
    first, second = _app(settings, graph, embedder), _app(settings, graph, embedder)
    try:
        with (
            TestClient(create_app(first.settings, first)) as a,
            TestClient(create_app(second.settings, second)) as b,
        ):
            uploaded = _upload(a, BASALT)
            assert uploaded.status_code == 201, uploaded.text
            yield a, b, first
    finally:
        delete_scope(graph, SCOPE)


def _upload(client: TestClient[Any], text: str) -> Any:
    file = ("basalt.md", text.encode(), "text/markdown")
    return client.post("/v1/documents", files={"file": file}, data={"scope": SCOPE},
                       headers=_headers("editor"))  # fmt: skip


def _ask(client: TestClient[Any], resources: AppResources, **params: Any) -> dict[str, Any]:
    response = client.post("/v1/query", json={"query": QUESTION, "scope": SCOPE},
                           params=params, headers=_headers("editor"))  # fmt: skip
    assert response.status_code == 200, response.text
    assert resources.records is not None and resources.records.flush(FLUSH_S)
    body: dict[str, Any] = response.json()
    return body


def test_an_answer_is_stored_with_its_links_and_read_back_on_another_replica(
    replicas: tuple[TestClient[Any], TestClient[Any], AppResources], graph: Graph
) -> None:
    a, b, resources = replicas
    body = _ask(a, resources)
    assert body["status"] == "answered" and body["citations"]
    trace_id = body["traceId"]
    [row] = graph.read_text(
        "MATCH (r:AnswerRecord {id: $id}) RETURN r.keyName AS key, r.status AS status, "
        "r.scope AS scope, r.replayId AS replay, r.citationCount AS citations, "
        "[(r)-[:CITED]->(p) | p.text] AS cited, [(r)-[:USED]->(p) | p.text] AS used, "
        "[(r)-[:CITED_DOCUMENT]->(d) | d.path] AS documents",
        {"id": trace_id},
    )
    assert row["key"] == "editor"  # the key's name, never the key
    assert (row["status"], row["scope"]) == ("answered", SCOPE)
    assert row["replay"] == body["evidenceStatus"]["replayId"].strip() != ""
    assert row["citations"] == len(body["citations"])
    for citation in body["citations"]:  # each quote lies inside a paragraph it links
        assert any(citation["quote"] in text for text in row["cited"]), citation
    assert set(row["cited"]) <= set(row["used"])
    assert row["documents"] == [f"{SCOPE}/basalt.md"]
    [found] = graph.read("explore/answers_citing_paragraph", path=f"{SCOPE}/basalt.md",
                         ordinal=_ordinal(graph))  # fmt: skip
    assert trace_id in {a["id"] for a in found["answers"]}

    served = b.get(f"/v1/traces/{trace_id}", headers=_headers("editor"))  # b never saw it
    assert served.status_code == 200, served.text
    assert served.json()["trace"] == body["trace"] and served.json()["stale"] is False
    hidden = b.get(f"/v1/traces/{trace_id}", headers=_headers("outsider"))
    assert hidden.status_code == 404  # a key never reads another scope's records
    metrics = a.get("/metrics").text
    assert 'kgs_answer_records_total{outcome="written"}' in metrics
    stored = re.search(
        rf'kgs_answer_records_stored{{scope="{SCOPE}",status="answered"}} (\S+)', metrics
    )
    assert stored and float(stored.group(1)) >= 1
    assert f'kgs_answer_records_stored_bytes{{scope="{SCOPE}",status="answered"}}' in metrics


def _ordinal(graph: Graph) -> int:
    [row] = graph.read_text(
        "MATCH (p:Paragraph {scope: $scope}) WHERE p.text STARTS WITH 'Basalt is a fine' "
        "RETURN p.ordinal AS ordinal", {"scope": SCOPE},
    )  # fmt: skip
    return int(row["ordinal"])


def test_the_compact_evidence_status_comes_without_the_trace(
    replicas: tuple[TestClient[Any], TestClient[Any], AppResources],
) -> None:
    a, _, resources = replicas
    body = _ask(a, resources, trace="false")
    assert "trace" not in body
    status = body["evidenceStatus"]
    assert status["scope"] == SCOPE and status["citations"] == len(body["citations"]) > 0
    assert status["evidence"] in ("sufficient", "borderline") and status["degradation"] == "none"
    assert status["graph"] in ("available", "no_anchor") and status["recovered"] is False
    assert status["replayId"].startswith("rcp_")


def test_a_change_of_a_cited_document_marks_its_records_stale(
    replicas: tuple[TestClient[Any], TestClient[Any], AppResources], graph: Graph
) -> None:
    a, _, resources = replicas
    before = _ask(a, resources)["traceId"]
    assert _upload(a, BASALT).json()["status"] == "unchanged"  # still current
    assert read_record(graph, before).stale is False  # type: ignore[union-attr]
    changed = _upload(a, BASALT_CHANGED)
    assert changed.status_code in (200, 201), changed.text
    record = read_record(graph, before)
    assert record is not None and record.stale
    [affected] = graph.read("explore/answers_affected_by_document", path=f"{SCOPE}/basalt.md")
    assert affected["documentId"] == changed.json()["documentId"]
    assert {a["id"]: a["stale"] for a in affected["answers"]}[before] is True
    after = _ask(a, resources)["traceId"]
    assert read_record(graph, after).stale is False  # type: ignore[union-attr]


def test_retention_deletes_by_age_then_keeps_the_newest(
    replicas: tuple[TestClient[Any], TestClient[Any], AppResources], graph: Graph
) -> None:
    a, _, resources = replicas
    response = _ask(a, resources, trace="true")
    # The copies are older than every record in the database (other tests', benches'), so
    # what retention deletes is known: dated 3, 2 and 1 days before the oldest one.
    [oldest] = graph.read_text("MATCH (r:AnswerRecord) RETURN min(r.createdAtMs) AS ms", {})
    day = 86_400_000
    old = []
    for days in (3, 2, 1):
        trace = {**response["trace"], "traceId": f"t_{uuid.uuid4().hex[:16]}"}
        record = build_record(
            {**response, "trace": trace}, request={"query": QUESTION}, scopes=(SCOPE,),
            key_name="editor", created_at_ms=int(oldest["ms"]) - days * day,
            max_response_bytes=1_000_000,
        )  # fmt: skip
        store_record(graph, record)
        old.append(record.id)
    # By age: with "now" 7 days after the oldest record and 8.5 days kept, the copies older
    # than 1.5 days before it go (the 3- and 2-day ones); the 1-day one and the rest stay.
    now_ms = int(oldest["ms"]) + 7 * day
    apply_retention(graph, RecordSettings(max_age_s=8.5 * 86_400, max_count=10**9), now_ms=now_ms)
    assert [read_record(graph, i) is not None for i in old] == [False, False, True]
    # By count: keeping all but one deletes exactly the oldest record, the 1-day copy.
    [total] = graph.read_text("MATCH (r:AnswerRecord) RETURN count(r) AS n", {})
    apply_retention(graph, RecordSettings(max_count=int(total["n"]) - 1, max_age_s=1e9),
                    now_ms=now_ms)  # fmt: skip
    assert read_record(graph, old[2]) is None
    assert read_record(graph, response["traceId"]) is not None


def test_a_record_stored_after_its_document_was_purged_counts_no_citation_of_it(
    replicas: tuple[TestClient[Any], TestClient[Any], AppResources], graph: Graph
) -> None:
    """The writer stores a record after its answer; a document purged in between leaves no
    citation count behind (the purge removed its counts, the late record must not recreate
    them), while the record's other documents are counted."""
    a, _, resources = replicas
    response = _ask(a, resources, trace="true")
    record = build_record(
        {**response, "trace": {**response["trace"], "traceId": f"t_{uuid.uuid4().hex[:16]}"}},
        request={"query": QUESTION}, scopes=(SCOPE,), key_name="editor",
        created_at_ms=int(time.time() * 1000), max_response_bytes=1_000_000,
    )  # fmt: skip
    gone = f"d_purged_{uuid.uuid4().hex[:12]}"
    kept = record.cited[0].document_id
    late = msgspec.structs.replace(
        record, cited=(*record.cited, msgspec.structs.replace(record.cited[0], document_id=gone))
    )
    store_record(graph, late)
    counted = graph.read_text(
        "MATCH (c:OpsCitedDay) WHERE c.documentId IN $ids RETURN DISTINCT c.documentId AS id",
        {"ids": [gone, kept]},
    )
    assert [row["id"] for row in counted] == [kept]


def test_the_listing_filters_pages_and_keeps_to_the_key_s_scopes(
    replicas: tuple[TestClient[Any], TestClient[Any], AppResources],
) -> None:
    a, _, resources = replicas
    asked = [_ask(a, resources)["traceId"] for _ in range(3)]
    since = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 3600))
    seen: list[str] = []
    cursor: str | None = None
    while True:  # pages of two, newest first, until the cursor runs out
        params = {"scope": SCOPE, "since": since, "q": "BASALT", "limit": 2,
                  **({"cursor": cursor} if cursor else {})}  # fmt: skip
        page = a.get("/v1/answers", params=params, headers=_headers("editor"))
        assert page.status_code == 200, page.text
        body = page.json()
        assert len(body["items"]) <= 2
        seen += [item["traceId"] for item in body["items"]]
        if not (cursor := body["nextCursor"]):
            break
    assert len(seen) == len(set(seen)) and set(asked) <= set(seen)
    assert seen.index(asked[2]) < seen.index(asked[1]) < seen.index(asked[0])  # newest first
    none = a.get("/v1/answers", params={"status": "abstained", "scope": SCOPE},
                 headers=_headers("editor"))  # fmt: skip
    assert none.status_code == 200 and none.json()["items"] == []
    outsider = a.get("/v1/answers", headers=_headers("outsider"))
    assert outsider.status_code == 200 and outsider.json()["items"] == []  # not SCOPE's
    assert a.get("/v1/answers", params={"scope": SCOPE},
                 headers=_headers("outsider")).status_code == 404  # fmt: skip
    bad = a.get("/v1/answers", params={"cursor": "bm90IGEgY3Vyc29y"}, headers=_headers("editor"))
    assert bad.status_code == 400


def test_an_export_bundle_quotes_its_sources_exactly(
    replicas: tuple[TestClient[Any], TestClient[Any], AppResources],
) -> None:
    a, _, resources = replicas
    assert _upload(a, BASALT).status_code in (200, 201)  # the source the quotes come from
    trace_id = _ask(a, resources)["traceId"]
    bundle = a.get(f"/v1/answers/{trace_id}/export", headers=_headers("editor"))
    assert bundle.status_code == 200, bundle.text
    body = bundle.json()
    assert body["question"] == QUESTION and body["citations"] and body["cypher"]
    for citation in body["citations"]:
        assert citation["quote"] == BASALT[citation["startOffset"] : citation["endOffset"]]
        assert citation["documentVersion"] >= 1
    assert all("parameters" in call for call in body["cypher"])
    assert body["contextPack"]["fragments"] and body["reviews"]["sufficiency"]
    hidden = a.get(f"/v1/answers/{trace_id}/export", headers=_headers("outsider"))
    assert hidden.status_code == 404


def test_a_replay_reports_a_changed_document(
    replicas: tuple[TestClient[Any], TestClient[Any], AppResources],
) -> None:
    a, _, resources = replicas
    assert _upload(a, BASALT).status_code in (200, 201)
    trace_id = _ask(a, resources)["traceId"]
    outsider = a.post(f"/v1/answers/{trace_id}/replay", headers=_headers("outsider"))
    assert outsider.status_code == 404  # another scope's key cannot replay it either
    same = a.post(f"/v1/answers/{trace_id}/replay", headers=_headers("editor"))
    assert same.status_code == 200, same.text
    assert same.json()["sameReplayId"] and same.json()["documentsChanged"] == []
    assert same.json()["status"]["changed"] is False
    changed = "# Basalt\n\nBasalt is a dark volcanic rock that covers most of the ocean floor.\n"
    assert _upload(a, changed).json()["status"] == "updated"
    assert resources.records is not None and resources.records.flush(FLUSH_S)
    moved = a.post(f"/v1/answers/{trace_id}/replay", headers=_headers("editor")).json()
    assert moved["sameReplayId"] is False
    assert [d["path"] for d in moved["documentsChanged"]] == [f"{SCOPE}/basalt.md"]
    assert moved["evidence"]["added"] and moved["evidence"]["removed"]
    assert moved["replayTraceId"] != trace_id


def test_the_writer_outlives_a_record_it_cannot_build(
    replicas: tuple[TestClient[Any], TestClient[Any], AppResources], graph: Graph
) -> None:
    a, _, resources = replicas
    good = _ask(a, resources, trace="true")
    outcomes: list[str] = []
    writer = RecordWriter(graph, RecordSettings(retention_interval_s=3600), outcomes.append)
    try:
        writer.submit(
            {"status": "answered"},
            request={"query": QUESTION},
            scopes=(SCOPE,),
            key_name="editor",
            created_at_ms=0,
        )  # no trace: cannot be built
        copy = {**good, "trace": {**good["trace"], "traceId": f"t_{uuid.uuid4().hex[:16]}"}}
        writer.submit(copy, request={"query": QUESTION}, scopes=(SCOPE,), key_name="editor",
                      created_at_ms=int(time.time() * 1000))  # fmt: skip
        assert writer.flush(FLUSH_S)
    finally:
        writer.close()
    assert outcomes == ["failed", "written"]
    assert read_record(graph, copy["trace"]["traceId"]) is not None
