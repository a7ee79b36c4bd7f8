"""The health report's contradictions (docs/health.md) on copies of the shipped knowledge base:
every scope a conflict probe is built on lists its contradiction, and no consistent scope
(the condition-qualified hard negatives) lists any, through the report, the CLI, the API and
the Browser file alike; ranking by citations and paging hold."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from litestar.testing import TestClient

from ingest.pipeline import IngestOptions, ingest
from service.api import create_app
from service.api.auth import hash_key
from service.api.state import AppResources
from service.db import Graph
from service.health import health_report, health_section
from service.probes import load_cases
from service.settings import ApiKey, ApiSettings, Settings, project_root
from tests.integration.conftest import delete_scope

KGS = [sys.executable, "-m", "service.cli"]
CASES = load_cases(project_root() / "tests" / "probes" / "conflicts.yaml").cases
PREFIX = f"h{uuid.uuid4().hex[:6]}-"
MERGED = f"{PREFIX}merged"  # two probes' pages in one scope: two contradictions to rank
READER = ("key-health", "health-reader")


def _expects_conflict(scope: str) -> bool:
    return any(c.scope == scope and c.expect.degradation == "conflict" for c in CASES)


SCOPES = sorted({case.scope for case in CASES})


@pytest.fixture(scope="module")
def scopes(
    graph: Graph, settings: Settings, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[None]:
    root = tmp_path_factory.mktemp("health-kb")
    for scope in SCOPES:
        shutil.copytree(project_root() / "knowledge_base" / scope, root / f"{PREFIX}{scope}")
    for scope in ("ragconflict", "ragdateconflict"):
        shutil.copytree(project_root() / "knowledge_base" / scope, root / MERGED,
                        dirs_exist_ok=True)  # fmt: skip
    try:
        assert ingest(graph, None, root, IngestOptions(), settings.ingest).added
        yield
    finally:
        for scope in [*SCOPES, "merged"]:
            delete_scope(graph, PREFIX + scope)


def _subjects(report_items: list[Any]) -> set[str]:
    return {item.subject for item in report_items}


def test_every_conflict_probe_scope_and_no_consistent_scope(
    graph: Graph, settings: Settings, scopes: None
) -> None:
    assert any(_expects_conflict(s) for s in SCOPES) and not all(map(_expects_conflict, SCOPES))
    for scope in SCOPES:
        report = health_report(graph, PREFIX + scope, settings.health)
        listed = report.contradictions.items
        assert bool(listed) == _expects_conflict(scope), (scope, _subjects(listed))
        for item in listed:  # each finding carries its evidence: both values, quoted, placed
            assert len(item.values) >= 2 and len(item.sides) >= 2
            assert all(side.value in side.quote and side.line > 0 for side in item.sides)
        # The Browser file lists the same subjects.
        rows = graph.read("explore/scope_contradictions", scope=PREFIX + scope)
        assert {r["subject"] for r in rows} == _subjects(listed), scope


def test_ranked_by_citations_and_paged(graph: Graph, settings: Settings, scopes: None) -> None:
    first = health_section(graph, MERGED, "contradictions", settings.health, limit=1)
    assert len(first.items) == 1 and first.next_after == "1"
    second = health_section(graph, MERGED, "contradictions", settings.health, after="1", limit=1)
    assert len(second.items) == 1 and second.next_after is None
    assert _subjects([*first.items, *second.items]) == {"calibration tolerance", "release date"}
    later = second.items[0]  # an answer citing it ranks it first
    with graph.driver.session(database=graph.database) as session:
        session.run("MATCH (p:Paragraph {id: $id}) CREATE (:AnswerRecord {id: $record, "
                    "scope: $scope})-[:CITED]->(p)", id=later.sides[0].paragraph_id,
                    record=f"t_{uuid.uuid4().hex[:16]}", scope=MERGED).consume()  # fmt: skip
    ranked = health_section(graph, MERGED, "contradictions", settings.health)
    assert ranked.items[0].subject == later.subject and ranked.items[0].cited == 1


def test_cli_prints_the_report_and_refuses_bad_input(cli_env: dict[str, str], scopes: None) -> None:
    run = subprocess.run([*KGS, "health", "--scope", f"{PREFIX}ragportconflict", "--json"],
                         env=cli_env, capture_output=True, text=True, timeout=120)  # fmt: skip
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert [c["subject"] for c in report["contradictions"]["items"]] == ["service port"]
    assert set(report["contradictions"]["items"][0]["values"]) == {"443", "8443"}
    text = subprocess.run([*KGS, "health", "--scope", f"{PREFIX}ragportconflict"], env=cli_env,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert "service port: " in text.stdout and "openGaps: 0" in text.stdout
    missing = subprocess.run([*KGS, "health", "--scope", f"{PREFIX}nothing-here"], env=cli_env,
                             capture_output=True, text=True, timeout=120)  # fmt: skip
    assert missing.returncode == 1 and "holds no documents" in missing.stderr
    for bad in (
        ["--limit", "0"],
        ["--after", "1"],
        ["--section", "contradictions", "--after", "x"],
    ):
        refused = subprocess.run([*KGS, "health", "--scope", MERGED, *bad], env=cli_env,
                                 capture_output=True, text=True, timeout=120)  # fmt: skip
        assert refused.returncode != 0 and refused.stderr.strip(), bad


@pytest.fixture(scope="module")
def client(graph: Graph, settings: Settings, scopes: None) -> Iterator[TestClient[Any]]:
    granted = (f"{PREFIX}ragdependencyconflict", f"{PREFIX}ragdependencyqualifier")
    key = ApiKey(name=READER[1], sha256=hash_key(READER[0]), scopes=granted, write=False)
    served = msgspec.structs.replace(settings, api=ApiSettings(keys=(key,), answer_processes=0))
    with TestClient(create_app(served, AppResources(served, graph=graph))) as test_client:
        yield test_client


def test_api_report_sections_and_problems(client: TestClient[Any]) -> None:
    headers = {"X-API-Key": READER[0]}
    conflict = client.get(f"/v1/scopes/{PREFIX}ragdependencyconflict/health", headers=headers)
    assert conflict.status_code == 200, conflict.text
    body = conflict.json()
    assert [c["subject"] for c in body["contradictions"]["items"]] == ["storage dependency"]
    assert {"expiredPages", "undescribedPoints", "danglingRelations", "nearDuplicates",
            "openGaps"} <= body.keys()  # fmt: skip
    consistent = client.get(f"/v1/scopes/{PREFIX}ragdependencyqualifier/health/contradictions",
                            headers=headers)  # fmt: skip
    assert consistent.status_code == 200 and consistent.json()["items"] == []
    for path, status in (
        (f"/v1/scopes/{PREFIX}ragdependencyconflict/health/nonsense", 400),
        (f"/v1/scopes/{PREFIX}ragdependencyconflict/health?limit=100000", 400),
        (f"/v1/scopes/{PREFIX}ragdependencyconflict/health/contradictions?after=x", 400),
        (f"/v1/scopes/{PREFIX}ragconflict/health", 404),  # not granted: as if it did not exist
    ):
        refused = client.get(path, headers=headers)
        assert refused.status_code == status, (path, refused.text)
        assert refused.headers["content-type"].startswith("application/problem+json")
    assert client.get(f"/v1/scopes/{PREFIX}ragconflict/health").status_code == 401
