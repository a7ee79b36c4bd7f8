"""The shipped knowledge base ingested into the real Neo4j (every scope renamed with a unique
prefix so the test owns its data), checked against the source files."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from ingest.embeddings import SentenceTransformerEmbedder
from ingest.markdown import parse_markdown
from ingest.pipeline import IngestOptions, IngestReport, ingest
from service.db import Graph
from service.settings import Settings, project_root
from tests.integration.conftest import delete_scope

SHIPPED = project_root() / "knowledge_base"


class Ingested:
    def __init__(self, root: Path, prefix: str, report: IngestReport) -> None:
        self.root, self.prefix, self.report = root, prefix, report

    def files(self) -> list[tuple[str, Path]]:
        return [
            (f.relative_to(self.root).as_posix(), f) for f in sorted(self.root.glob("*/**/*.md"))
        ]

    def scopes(self) -> list[str]:
        return sorted(p.name for p in self.root.iterdir() if p.is_dir())


@pytest.fixture(scope="module")
def shipped(
    graph: Graph,
    settings: Settings,
    embedder: SentenceTransformerEmbedder,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Ingested]:
    prefix = f"t{uuid.uuid4().hex[:6]}-"
    root = tmp_path_factory.mktemp("kb")
    for folder in SHIPPED.iterdir():
        if folder.is_dir():
            shutil.copytree(folder, root / f"{prefix}{folder.name}")
    report = ingest(graph, embedder, root, IngestOptions(), settings.ingest)
    data = Ingested(root, prefix, report)
    yield data
    for scope in data.scopes():
        delete_scope(graph, scope)


def test_everything_went_in(shipped: Ingested) -> None:
    report = shipped.report
    assert report.failed_files == []
    assert len(report.added) == len(shipped.files()) >= 100
    assert report.embedding_failure is None
    assert report.embeddings_computed == report.paragraphs_written > 1000


def test_counts_per_label_match_the_sources(
    shipped: Ingested, graph: Graph, settings: Settings
) -> None:
    words = settings.ingest.passage_words  # long prose paragraphs are cut into passages
    for scope in shipped.scopes():
        files = [f for path, f in shipped.files() if path.startswith(scope + "/")]
        parsed = [parse_markdown(f.read_text(encoding="utf-8"), passage_words=words) for f in files]
        declared = sum(_declared_knowledge_points(p.front_matter) for p in parsed)
        counts = {r["label"]: r["nodes"] for r in graph.read("explore/scope_overview", scope=scope)}
        assert counts["Document"] == len(files), scope
        assert counts["Paragraph"] == sum(len(p.blocks) for p in parsed), scope
        assert counts["Heading"] == sum(len(p.headings) for p in parsed), scope
        assert counts["KnowledgePoint"] == len(files) + declared, scope


def test_offsets_reproduce_the_source_text(shipped: Ingested, graph: Graph) -> None:
    checked = 0
    for path, file in shipped.files():
        source = file.read_text(encoding="utf-8")
        for row in graph.read("explore/document_paragraphs", path=path):
            assert source[row["startOffset"] : row["endOffset"]] == row["text"], (
                path,
                row["ordinal"],
            )
            assert source.count("\n", 0, row["startOffset"]) + 1 == row["startLine"]
            assert row["vectors"] == ["embedding"]
            checked += 1
        for row in graph.read("explore/document_headings", path=path):
            assert source[row["startOffset"] : row["endOffset"]] == row["text"], (path, row["text"])
    assert checked == shipped.report.paragraphs_written


def test_heading_tree_paths_and_next_chain(shipped: Ingested, graph: Graph) -> None:
    for path, _ in shipped.files():
        headings = graph.read("explore/document_headings", path=path)
        by_id = {h["id"]: h for h in headings}
        for h in headings:
            if h["parentId"] is None:
                assert h["topLevel"] and h["headingPath"] == [h["text"]]
            else:
                assert h["headingPath"] == [*by_id[h["parentId"]]["headingPath"], h["text"]]
                assert by_id[h["parentId"]]["level"] < h["level"]
        paragraphs = graph.read("explore/document_paragraphs", path=path)
        chain = graph.read("explore/next_chain", path=path)
        assert [c["ids"] for c in chain] == [[p["id"] for p in paragraphs]], path


def test_front_matter_relations_keep_type_confidence_and_provenance(
    shipped: Ingested, graph: Graph
) -> None:
    checked = 0
    for path, file in shipped.files():
        doc = parse_markdown(file.read_text(encoding="utf-8"))
        front = yaml.safe_load(doc.front_matter or "") or {}
        scope = path.split("/", 1)[0]
        relations = graph.read("explore/scope_relations", scope=scope)
        source = front.get("id") or Path(path).stem
        for spec in front.get("relations") or []:
            match = [
                r for r in relations
                if (r["source"], r["type"], r["target"], r["provenance"])
                == (source, spec["type"], spec["target"], "front_matter")
            ]  # fmt: skip
            assert len(match) == 1, (path, spec)
            assert match[0]["confidence"] == pytest.approx(spec.get("confidence", 0.8))
            checked += 1
    assert checked > 100


def test_mermaid_and_link_relations_point_at_their_paragraph(
    shipped: Ingested, graph: Graph
) -> None:
    kinds = {"mermaid": 0, "link": 0}
    for scope in shipped.scopes():
        for relation in graph.read("explore/scope_relations", scope=scope):
            if relation["provenance"] not in kinds:
                continue
            kinds[relation["provenance"]] += 1
            evidence = graph.read(
                "explore/relation_evidence",
                scope=scope,
                source=relation["source"],
                target=relation["target"],
            )
            paragraph = next(
                e["paragraph"] for e in evidence if e["provenance"] == relation["provenance"]
            )
            if relation["provenance"] == "mermaid":
                assert paragraph.startswith("```mermaid")
            else:
                assert "](" in paragraph and ".md" in paragraph
    assert kinds["mermaid"] >= 30 and kinds["link"] >= 100


def test_reingest_is_a_no_op(shipped: Ingested, graph: Graph, settings: Settings,
                             embedder: SentenceTransformerEmbedder) -> None:  # fmt: skip
    scope = shipped.scopes()[0]
    before = graph.read("explore/scope_relations", scope=scope)
    ids_before = {p: [r["id"] for r in graph.read("explore/document_paragraphs", path=p)]
                  for p, _ in shipped.files()}  # fmt: skip
    again = ingest(graph, embedder, shipped.root, IngestOptions(), settings.ingest)
    assert again.added == again.updated == again.removed == []
    assert len(again.unchanged) == len(shipped.files())
    assert again.writes.total == 0 and again.embeddings_computed == 0
    assert graph.read("explore/scope_relations", scope=scope) == before
    assert ids_before == {p: [r["id"] for r in graph.read("explore/document_paragraphs", path=p)]
                          for p, _ in shipped.files()}  # fmt: skip


def test_documents_are_readable_through_the_neomodel_classes(
    shipped: Ingested, graph: Graph
) -> None:
    from neomodel import db

    from service.graph_model import Document, KnowledgePoint

    db.set_connection(driver=graph.driver)
    path, _ = shipped.files()[0]
    document = Document.nodes.get(path=path)
    assert document.scope == path.split("/", 1)[0]
    assert document.version == 1 and document.embedding_status == "ok"
    headings = document.headings.all()
    assert headings and all(h.level >= 1 for h in headings)
    described = [
        point
        for point in KnowledgePoint.nodes.filter(scope=document.scope)
        if any(d.path == path for d in point.described_in.all())
    ]
    assert len(described) == 1 and described[0].title


def _declared_knowledge_points(front_matter: str | None) -> int:
    front = yaml.safe_load(front_matter or "") or {}
    return len(front.get("knowledge_points") or [])
