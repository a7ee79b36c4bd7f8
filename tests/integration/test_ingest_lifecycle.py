"""Changes over time: edited, deleted and malformed files, a killed run, a failing model."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from ingest import units
from ingest.embeddings import EmbeddingError, SentenceTransformerEmbedder
from ingest.pipeline import IngestOptions, ingest
from service.db import Graph
from service.pipeline.augment import document_rows, passage_of
from service.settings import Settings
from service.text.analysis import decode_analysis
from service.text.facts import paragraph_analysis
from tests.integration.conftest import delete_scope

ALPHA = """---
id: alpha
aliases: [first]
relations:
  - {type: CONTRASTS_WITH, target: beta, confidence: 0.9}
---
# Alpha

Alpha opens the alphabet.

## Details

Alpha has a second paragraph.

Alpha has a third paragraph that links to [Beta](beta.md).
"""

BETA = """---
relations:
  - {type: PRECEDES, target: alpha, confidence: 0.6}
---
# Beta

Beta follows alpha.

```mermaid
flowchart LR
  B[Beta] -->|analogous to| A[Alpha]
```
"""

MALFORMED = "---\nid: broken\ntitle: a: b\n---\n# Broken\n\nNever ingested.\n"


class _Unloadable(SentenceTransformerEmbedder):
    def _load(self) -> Any:
        raise EmbeddingError(f"cannot load embedding model {self.name!r}: its files are gone")


def _kb(root: Path, scope: str, files: dict[str, str]) -> Path:
    folder = root / scope
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return root


def _paragraph_ids(graph: Graph, path: str) -> list[str]:
    return [r["id"] for r in graph.read("explore/document_paragraphs", path=path)]


def test_change_delete_and_malformed_files(
    graph: Graph,
    settings: Settings,
    embedder: SentenceTransformerEmbedder,
    scope: str,
    tmp_path: Path,
) -> None:
    root = _kb(tmp_path, scope, {"alpha.md": ALPHA, "beta.md": BETA, "broken.md": MALFORMED})
    first = ingest(graph, embedder, root, IngestOptions(), settings.ingest)
    assert sorted(first.added) == [f"{scope}/alpha.md", f"{scope}/beta.md"]
    assert first.failed_files == [f"{scope}/broken.md"]
    problem = next(p for p in first.problems if p.severity == "error")
    assert problem.line == 3 and "malformed YAML" in problem.message

    alpha, beta = f"{scope}/alpha.md", f"{scope}/beta.md"
    alpha_ids, beta_ids = _paragraph_ids(graph, alpha), _paragraph_ids(graph, beta)
    relations = {(r["source"], r["type"], r["target"], r["provenance"])
                 for r in graph.read("explore/scope_relations", scope=scope)}  # fmt: skip
    assert relations == {
        ("alpha", "CONTRASTS_WITH", "beta", "front_matter"),
        ("alpha", "REFERENCES", "beta", "link"),
        ("beta", "PRECEDES", "alpha", "front_matter"),
        ("beta", "ANALOGOUS_TO", "alpha", "mermaid"),
    }

    # Edit one paragraph of alpha: exactly that paragraph is replaced, beta is not touched.
    (root / scope / "alpha.md").write_text(
        ALPHA.replace("a second paragraph", "an edited paragraph"), encoding="utf-8"
    )
    second = ingest(graph, embedder, root, IngestOptions(), settings.ingest)
    assert second.updated == [alpha] and second.added == []
    assert second.unchanged == [beta]
    assert second.embeddings_computed == 1
    new_ids = _paragraph_ids(graph, alpha)
    assert len(set(alpha_ids) - set(new_ids)) == 1 and len(set(new_ids) - set(alpha_ids)) == 1
    assert _paragraph_ids(graph, beta) == beta_ids
    texts = [r["text"] for r in graph.read("explore/document_paragraphs", path=alpha)]
    assert "Alpha has an edited paragraph." in texts
    assert "Alpha has a second paragraph." not in texts

    # Delete beta: with --prune it is withdrawn: paragraphs, knowledge point and relations go.
    (root / scope / "beta.md").unlink()
    third = ingest(graph, embedder, root, IngestOptions(prune=True), settings.ingest)
    assert third.removed == [beta]
    assert graph.read("explore/document_paragraphs", path=beta) == []
    remaining = {(r["source"], r["type"], r["target"])
                 for r in graph.read("explore/scope_relations", scope=scope)}  # fmt: skip
    # alpha's own relations to beta now have no target document: beta is pruned with them.
    assert remaining == set()
    counts = {r["label"]: r["nodes"] for r in graph.read("explore/scope_overview", scope=scope)}
    # beta is withdrawn, not purged: its Document stays (restorable, with its versions).
    assert counts == {"Document": 2, "Heading": 2, "Paragraph": 3, "KnowledgePoint": 1,
                      "Fact": 0}  # fmt: skip
    statuses = graph.read("api/documents_page", scopes=[scope], after="", limit=10,
                          statuses=["active", "withdrawn"])  # fmt: skip
    assert {(r["path"], r["status"]) for r in statuses} == {(alpha, "active"),
                                                            (beta, "withdrawn")}  # fmt: skip


def test_paragraphs_carry_their_text_analysis_and_a_new_version_rewrites_them(
    graph: Graph,
    settings: Settings,
    embedder: SentenceTransformerEmbedder,
    scope: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    root = _kb(tmp_path, scope, {"alpha.md": ALPHA, "beta.md": BETA})
    ingest(graph, embedder, root, IngestOptions(), settings.ingest)
    ids = [r["id"] for r in graph.read("ingest/document_states", scope=scope)]
    rows = document_rows(graph, ids)
    assert len(rows) == 5
    for row in rows:
        passage = passage_of(row)
        assert decode_analysis(passage.analysis) is not None, row["text"]
        assert passage.analysis == paragraph_analysis(str(row["text"]), str(row["kind"]))

    # Another extractor: every document counts as changed and is rewritten (its vectors kept).
    monkeypatch.setattr(units, "ANALYSIS_VERSION", "next-extractor")
    again = ingest(graph, embedder, root, IngestOptions(), settings.ingest)
    assert sorted(again.updated) == [f"{scope}/alpha.md", f"{scope}/beta.md"]
    assert again.embeddings_computed == 0
    assert ingest(graph, embedder, root, IngestOptions(), settings.ingest).updated == []


def test_dry_run_writes_nothing(
    graph: Graph, settings: Settings, scope: str, tmp_path: Path
) -> None:
    root = _kb(tmp_path, scope, {"alpha.md": ALPHA})
    report = ingest(graph, None, root, IngestOptions(dry_run=True), settings.ingest)
    assert report.added == [f"{scope}/alpha.md"]
    assert report.writes.total == 0
    counts = {r["label"]: r["nodes"] for r in graph.read("explore/scope_overview", scope=scope)}
    assert set(counts.values()) == {0}


def test_model_failure_degrades_to_lexical_only_then_recovers(
    graph: Graph,
    settings: Settings,
    embedder: SentenceTransformerEmbedder,
    scope: str,
    tmp_path: Path,
) -> None:
    root = _kb(tmp_path, scope, {"alpha.md": ALPHA, "beta.md": BETA})
    broken = _Unloadable(settings.embedding)  # the graph's model, whose files are gone
    report = ingest(graph, broken, root, IngestOptions(), settings.ingest)
    assert report.failed_files == [] and len(report.added) == 2
    assert report.embedding_failure and "cannot load embedding model" in report.embedding_failure
    rows = graph.read("explore/document_paragraphs", path=f"{scope}/alpha.md")
    assert rows and not any(r["vectors"] for r in rows)

    healed = ingest(graph, embedder, root, IngestOptions(), settings.ingest)
    assert sorted(healed.updated) == [f"{scope}/alpha.md", f"{scope}/beta.md"]
    assert healed.embeddings_computed == healed.paragraphs_written
    rows = graph.read("explore/document_paragraphs", path=f"{scope}/alpha.md")
    assert all(r["vectors"] == ["embedding"] for r in rows)


def _snapshot(graph: Graph, scope: str, paths: list[str]) -> dict[str, object]:
    return {
        "counts": graph.read("explore/scope_overview", scope=scope),
        "relations": graph.read("explore/scope_relations", scope=scope),
        "paragraphs": {p: graph.read("explore/document_paragraphs", path=p) for p in paths},
        "headings": {p: graph.read("explore/document_headings", path=p) for p in paths},
    }


def test_killed_ingest_then_rerun_equals_a_clean_ingest(
    graph: Graph, cli_env: dict[str, str], scope: str, tmp_path: Path
) -> None:
    documents = 120
    files = {
        f"doc-{i:03}.md": (
            "---\nrelations:\n"
            f"  - {{type: PRECEDES, target: doc-{(i + 1) % documents:03}, confidence: 0.7}}\n---\n"
            f"# Document {i}\n\n"
            + "\n\n".join(
                f"## Part {j}\n\nParagraph {j} of document {i} about topic {i % 7}."
                for j in range(8)
            )
            + "\n"
        )
        for i in range(documents)
    }
    root = _kb(tmp_path, scope, files)
    paths = [f"{scope}/{name}" for name in files]
    command = [sys.executable, "-m", "service.cli", "ingest", str(root), "--no-progress"]
    process = subprocess.Popen(
        command, env=cli_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    written = 0
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and process.poll() is None:
        written = graph.read("explore/scope_overview", scope=scope)[0]["nodes"]
        if written > 0:
            break
        time.sleep(0.02)
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=30)
    assert 0 < written < documents, f"kill did not land mid-run ({written} documents written)"

    rerun = subprocess.run(command, env=cli_env, capture_output=True, text=True, timeout=600)
    assert rerun.returncode == 0, rerun.stderr
    after_rerun = _snapshot(graph, scope, paths)

    delete_scope(graph, scope)
    clean = subprocess.run(command, env=cli_env, capture_output=True, text=True, timeout=600)
    assert clean.returncode == 0, clean.stderr
    assert _snapshot(graph, scope, paths) == after_rerun
    counts = {r["label"]: r["nodes"] for r in after_rerun["counts"]}  # type: ignore[attr-defined]
    assert counts == {"Document": documents, "Heading": 9 * documents, "Paragraph": 8 * documents,
                      "KnowledgePoint": documents, "Fact": 8 * documents}  # fmt: skip


@pytest.mark.parametrize("name", ["bad scope!", "../escape"])
def test_invalid_scope_is_refused(
    graph: Graph, settings: Settings, tmp_path: Path, name: str
) -> None:
    with pytest.raises(ValueError, match="invalid scope"):
        ingest(graph, None, tmp_path, IngestOptions(scope=name), settings.ingest)


GAMMA = """# Gamma

Gamma draws how the others relate.

```mermaid
flowchart LR
  A[Alpha] -->|analogous to| B[Beta]
```
"""


@pytest.mark.parametrize("legacy", [False, True])
def test_an_edit_removes_the_relations_a_document_drew_between_other_documents_points(
    graph: Graph,
    settings: Settings,
    embedder: SentenceTransformerEmbedder,
    scope: str,
    tmp_path: Path,
    legacy: bool,
) -> None:
    root = _kb(tmp_path, scope, {"alpha.md": ALPHA, "beta.md": BETA, "gamma.md": GAMMA})
    ingest(graph, embedder, root, IngestOptions(), settings.ingest)

    def drawn() -> set[tuple[str, str, str]]:
        return {(r["source"], r["type"], r["target"])
                for r in graph.read("explore/scope_relations", scope=scope)
                if r["provenance"] == "mermaid"}  # fmt: skip

    assert ("alpha", "ANALOGOUS_TO", "beta") in drawn()  # alpha is described by another file
    if legacy:  # as a document written before documents recorded their relations' sources
        graph.driver.execute_query(
            "MATCH (d:Document {scope: $scope}) REMOVE d.relationSources",
            scope=scope, database_=graph.database,
        )  # fmt: skip
    (root / scope / "gamma.md").write_text(GAMMA.split("```")[0], encoding="utf-8")
    report = ingest(graph, embedder, root, IngestOptions(), settings.ingest)
    assert report.updated == [f"{scope}/gamma.md"]
    assert drawn() == {("beta", "ANALOGOUS_TO", "alpha")}  # beta's own edge stays
    recorded, _, _ = graph.driver.execute_query(
        "MATCH (d:Document {scope: $scope}) RETURN d.path AS path, d.relationSources AS sources",
        scope=scope, database_=graph.database,
    )  # fmt: skip
    assert {r["path"].split("/")[-1]: r["sources"] for r in recorded} == {
        "alpha.md": ["alpha"], "beta.md": ["beta"], "gamma.md": [],
    }  # fmt: skip
