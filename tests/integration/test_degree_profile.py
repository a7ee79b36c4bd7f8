"""An anchor's centrality rank comes from the scope's degree histogram, which every ingest keeps
in step with the knowledge points' degrees; a scope written before the histogram existed is
counted point by point until its next ingest gives it one."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from ingest.pipeline import IngestOptions, ingest
from service.db import Graph
from service.settings import Settings, project_root


def _ranks(graph: Graph, scope: str) -> dict[str, tuple[int, int]]:
    """Each point's rank by the statement the answer path runs, and by counting directly."""
    points = graph.read_text(
        "MATCH (k:KnowledgePoint {scope: $scope}) RETURN k.id AS id, k.degree AS degree",
        {"scope": scope},
    )
    degrees = [int(p["degree"]) for p in points]
    return {
        str(p["id"]): (
            int(graph.read("graph/degree_profile", scope=scope, id=p["id"])[0]["centralityRank"]),
            1 + sum(1 for d in degrees if d > int(p["degree"])),
        )
        for p in points
    }


def _histogram(graph: Graph, scope: str) -> list[dict[str, Any]]:
    return graph.read_text(
        "MATCH (s:Scope {scope: $scope}) "
        "RETURN s.knowledgePointDegrees AS degrees, s.knowledgePointsPerDegree AS counts",
        {"scope": scope},
    )


def test_rank_from_the_histogram_matches_a_count_and_follows_changes(
    graph: Graph, settings: Settings, scope: str, tmp_path: Path
) -> None:
    shutil.copytree(project_root() / "knowledge_base" / "graphintent", tmp_path / "kb")
    folder = tmp_path / "kb"
    ingest(graph, None, folder, IngestOptions(scope=scope), settings.ingest)

    ranks = _ranks(graph, scope)
    assert len(ranks) >= 5
    assert all(served == counted for served, counted in ranks.values()), ranks
    assert len({served for served, _ in ranks.values()}) > 1  # the points' degrees differ
    (histogram,) = _histogram(graph, scope)
    assert sum(histogram["counts"]) == len(ranks)
    assert histogram["degrees"] == sorted(histogram["degrees"], reverse=True)

    # A document removed: degrees and histogram change together.
    (folder / "polymer-cup.md").unlink()
    ingest(graph, None, folder, IngestOptions(scope=scope, prune=True), settings.ingest)
    after = _ranks(graph, scope)
    assert all(served == counted for served, counted in after.values()), after
    assert after != ranks


def test_a_scope_without_a_histogram_is_counted_until_its_next_ingest(
    graph: Graph, settings: Settings, scope: str, tmp_path: Path
) -> None:
    shutil.copytree(project_root() / "knowledge_base" / "graphintent", tmp_path / "kb")
    ingest(graph, None, tmp_path / "kb", IngestOptions(scope=scope), settings.ingest)
    expected = _ranks(graph, scope)
    graph.driver.execute_query(
        "MATCH (s:Scope {scope: $scope}) "
        "REMOVE s.knowledgePointDegrees, s.knowledgePointsPerDegree",
        {"scope": scope}, database_=graph.database,
    )  # fmt: skip
    assert _ranks(graph, scope) == expected  # counted

    report = ingest(graph, None, tmp_path / "kb", IngestOptions(scope=scope), settings.ingest)
    assert report.added == [] and report.updated == []  # nothing changed
    (histogram,) = _histogram(graph, scope)
    assert histogram["degrees"] is not None
    assert _ranks(graph, scope) == expected
