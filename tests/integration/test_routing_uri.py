"""The `neo4j://` routing scheme a cluster needs works against the single local server too:
reads go through routed read sessions, writes through the writer, with the same results as over
`bolt://`."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import msgspec
import neo4j
import pytest

from ingest.pipeline import IngestOptions, ingest
from service.db import open_graph
from service.db.graph import Graph
from service.db.selection import Connection
from service.pipeline.plan import plan_query
from service.pipeline.retrieval import retrieve_spans
from service.settings import PipelineSettings, Settings, project_root


@pytest.fixture
def routed(settings: Settings, connection: Connection) -> Iterator[Graph]:
    if not connection.uri.startswith("bolt://"):
        pytest.skip(f"the session's server is reached as {connection.uri}")
    uri = "neo4j://" + connection.uri.removeprefix("bolt://")
    neo4j_settings = msgspec.structs.replace(
        settings.neo4j, uri=uri, user=connection.user, password=connection.password
    )
    graph, _, close = open_graph(msgspec.structs.replace(settings, neo4j=neo4j_settings))
    yield graph
    close()


def test_a_routing_driver_reads_and_writes_like_a_direct_one(
    graph: Graph, routed: Graph, scope: str
) -> None:
    assert isinstance(routed.driver, neo4j.Neo4jDriver)  # the routing driver, not BoltDriver
    routed.driver.execute_query(
        "CREATE (:Document {id: $id, scope: $scope, path: $path, title: 'Routed'})",
        {"id": f"d_{scope}", "scope": scope, "path": f"{scope}/routed.md"},
        database_=routed.database, routing_=neo4j.RoutingControl.WRITE,
    )  # fmt: skip
    query = "MATCH (d:Document {scope: $scope}) RETURN d.title AS t"
    assert graph.read_text(query, {"scope": scope}) == [{"t": "Routed"}]
    assert routed.read_text(query, {"scope": scope}) == [{"t": "Routed"}]


def test_ingest_and_retrieval_over_neo4j_scheme_match_bolt(
    graph: Graph, routed: Graph, scope: str, settings: Settings, tmp_path: Path
) -> None:
    shutil.copytree(project_root() / "knowledge_base" / "waterglass", tmp_path / scope)
    report = ingest(routed, None, tmp_path, IngestOptions(), settings.ingest)  # lexical only
    assert not report.failed_files
    plan = plan_query("what is water glass made of?", scope)
    direct = retrieve_spans(graph.child(), plan, None, PipelineSettings())
    over_routing = retrieve_spans(routed.child(), plan, None, PipelineSettings())
    assert direct.hits and direct.fulltext_mode == "exact"
    assert over_routing.hits == direct.hits
