"""The evidence path against the real Neo4j, on copies of shipped probe corpora (own scopes)."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from ingest.embeddings import SentenceTransformerEmbedder
from ingest.pipeline import IngestOptions, ingest
from service.db import Graph
from service.pipeline.explain import render_explain
from service.probes.runner import run_probes
from service.question.runner import QuestionError, answer_question
from service.settings import Settings, project_root
from tests.integration.conftest import delete_scope

FOLDERS = (
    "waterglass",
    "graphintent",
    "graphintentmissing",
    "graphintentmultiloss",
    "contextbudget",
)


@pytest.fixture(scope="module")
def corpus(
    graph: Graph, settings: Settings, embedder: SentenceTransformerEmbedder,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Path, dict[str, str]]]:  # fmt: skip
    prefix = f"e{uuid.uuid4().hex[:6]}-"
    root = tmp_path_factory.mktemp("kb")
    scopes = {name: prefix + name for name in FOLDERS}
    for name, scope in scopes.items():
        shutil.copytree(project_root() / "knowledge_base" / name, root / scope)
    ingest(graph, embedder, root, IngestOptions(), settings.ingest)
    yield root, scopes
    for scope in scopes.values():
        delete_scope(graph, scope)


def test_compare_selects_intent_aligned_neighbours_and_reads_their_documents(
    graph: Graph, embedder: SentenceTransformerEmbedder, corpus: tuple[Path, dict[str, str]]
) -> None:
    _, scopes = corpus
    response = answer_question(
        graph, embedder, "compare the brittle glass vessel with the polymer cup",
        scope=scopes["graphintent"],
    )  # fmt: skip
    context = response["trace"]["graphContext"]
    successors = {n["title"]: n["relation"] for n in context["successors"]}
    assert "Polymer cup" in successors
    assert set(successors.values()) <= {"CONTRASTS_WITH", "ANALOGOUS_TO"}
    assert "Vessel rinsing procedure" not in successors
    assert context["diagnostics"]["alignedCandidates"] >= 2
    excluded = {e["title"]: e["reason"] for e in context["diagnostics"]["excluded"]}
    assert "misaligned" in excluded["Vessel rinsing procedure"]
    pack = response["trace"]["ragContextPack"]
    neighbours = [f for f in pack["fragments"] if f["role"] == "graph_neighbor_support"]
    assert neighbours and all(f["sourceBoundary"] == "full_document" for f in neighbours)
    assert pack["sourceBoundary"] == "full_document"
    assert len(pack["fragments"]) <= pack["budget"]["fragments"]
    assert pack["totalChars"] <= pack["budget"]["totalChars"]


def test_missing_neighbour_source_degrades_to_a_decision(
    graph: Graph, embedder: SentenceTransformerEmbedder, corpus: tuple[Path, dict[str, str]]
) -> None:
    _, scopes = corpus
    response = answer_question(
        graph, embedder, "compare the brittle glass vessel with the polymer cup",
        scope=scopes["graphintentmissing"],
    )  # fmt: skip
    decisions = response["trace"]["ragContextPack"]["sourceDecisions"]
    missing = [d for d in decisions if d["status"] == "source_window_unavailable"]
    assert missing and all(d["role"] == "graph_neighbor_support" for d in missing)
    assert "Ceramic mug" in missing[0]["reason"]
    stages = {c["stage"] for c in response["trace"]["ragFailureClassifications"]}
    assert {"graph_evidence", "parsing_source"} <= stages
    review = response["trace"]["ragSufficiencyReview"]
    assert (review["status"], review["degradation"]) == ("borderline", "partial_coverage")
    assert any("graph_neighbor_evidence_missing" in r for r in review["reasons"])


def test_each_lost_neighbour_source_is_its_own_decision(
    graph: Graph, embedder: SentenceTransformerEmbedder, corpus: tuple[Path, dict[str, str]]
) -> None:
    _, scopes = corpus
    response = answer_question(
        graph, embedder, "compare brittle glass vessel with polymer cup material behavior",
        scope=scopes["graphintentmultiloss"],
    )  # fmt: skip
    missing = [
        d for d in response["trace"]["ragContextPack"]["sourceDecisions"]
        if d["status"] == "source_window_unavailable"
    ]  # fmt: skip
    assert len(missing) >= 2
    assert len({d["fragmentId"] for d in missing}) == len(missing)


def test_citations_quote_the_source_exactly(
    graph: Graph, embedder: SentenceTransformerEmbedder, corpus: tuple[Path, dict[str, str]]
) -> None:
    root, scopes = corpus
    response = answer_question(graph, embedder, "what is waterglass?", scope=scopes["waterglass"])
    assert response["status"] == "answered"
    assert response["structuredAnswer"]["directAnswer"] == response["answer"]
    assert response["citations"]
    for citation in response["citations"]:
        source = (root / citation["path"]).read_text(encoding="utf-8")
        assert source[citation["startOffset"] : citation["endOffset"]] == citation["quote"]
        assert source.count("\n", 0, citation["startOffset"]) + 1 == citation["startLine"]
    hits = response["trace"]["retrieval"]["hits"]
    assert hits[0]["path"].endswith("waterglass.md")
    assert {"fulltext", "vector"} & set(hits[0]["ranks"])


def test_same_question_same_replay_id(
    graph: Graph, embedder: SentenceTransformerEmbedder, corpus: tuple[Path, dict[str, str]]
) -> None:
    _, scopes = corpus
    first, second = (
        answer_question(graph, embedder, "what is water glass", scope=scopes["waterglass"])
        for _ in range(2)
    )
    assert (
        first["trace"]["ragContextPack"]["replayId"]
        == second["trace"]["ragContextPack"]["replayId"]
    )
    assert first["trace"]["traceId"] != second["trace"]["traceId"]


def test_explain_prints_replayable_cypher(
    graph: Graph, embedder: SentenceTransformerEmbedder, corpus: tuple[Path, dict[str, str]]
) -> None:
    _, scopes = corpus
    response = answer_question(
        graph, embedder, "compare water glass and plastic cup", scope=scopes["waterglass"]
    )
    text = render_explain(response["trace"]["cypher"], graph.registry)
    assert ":param scope => '" + scopes["waterglass"] + "';" in text
    assert "// ===== graph context =====" in text
    # Every statement printed runs unchanged with the parameters printed above it.
    for call in response["trace"]["cypher"]:
        rows = graph.read(call["statement"], **call["parameters"])
        assert len(rows) == call["rows"], call["statement"]


def test_bad_questions_are_refused(graph: Graph, corpus: tuple[Path, dict[str, str]]) -> None:
    with pytest.raises(QuestionError):
        answer_question(graph, None, "   ", scope="x")
    with pytest.raises(QuestionError):
        answer_question(graph, None, "x" * 5000, scope="x")
    hostile = answer_question(
        graph, None, "') DETACH DELETE n // \" OR *:* ~", scope=corpus[1]["waterglass"]
    )
    assert hostile["status"] in {"answered", "abstained"}


def test_probe_runner_reports_each_case_and_the_summary(
    graph: Graph, settings: Settings, embedder: SentenceTransformerEmbedder,
    corpus: tuple[Path, dict[str, str]], tmp_path: Path,
) -> None:  # fmt: skip
    root, scopes = corpus
    cases = tmp_path / "cases.yaml"
    cases.write_text(
        f"""cases:
  - id: budget_truncation
    query: what is context budget probe?
    scope: {scopes["contextbudget"]}
    expect:
      decisions_include: [fragment_truncated]
      roles_include: [direct_support]
      budget: {{fragments: 14, fragment_chars: 1400, total_chars: 5600}}
  - id: deep_profile
    query: explain the water glass in depth
    scope: {scopes["waterglass"]}
    expect:
      budget: {{fragments: 24, fragment_chars: 1600, total_chars: 9000}}
  - id: must_fail
    query: what is waterglass?
    scope: {scopes["waterglass"]}
    expect:
      roles_include: [conflict]
""",
        encoding="utf-8",
    )
    lines: list[str] = []
    passed, failed = run_probes(graph, embedder, cases, root, settings, lines.append)
    assert (passed, failed) == (2, 1)
    assert lines[0] == "PASS budget_truncation" and lines[1] == "PASS deep_profile"
    assert lines[2].startswith("FAIL must_fail: roles_include")
    assert lines[-1] == "2 passed, 1 failed"
