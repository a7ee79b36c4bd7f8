"""Facts as graph nodes (ingest/facts.py, docs/facts.md): written with their paragraphs, the
same facts the conflict scan finds in the text, replaced by a new version while history keeps
the old ones, removed with a released version or a purged document, and rebuilt for documents
written without them."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec

from ingest.embeddings import SentenceTransformerEmbedder
from ingest.fact_rebuild import rebuild_facts
from ingest.lifecycle import purge
from ingest.pipeline import IngestOptions, ingest
from ingest.retention import apply_retention
from service.db import Graph
from service.pipeline.augment import document_rows, passage_of, stored_profiles
from service.pipeline.conflicts import scan_conflicts
from service.settings import Settings, VersionSettings, project_root
from service.text.analysis import decode_analysis, forget_decoded
from service.text.facts import document_profile, extract_facts, in_context

KGS = [sys.executable, "-m", "service.cli"]
CONFLICT = project_root() / "knowledge_base" / "ragconflict"
TOLERANCE = "calibration-tolerance-conflict-probe.md"


def _kb(tmp_path: Path, scope: str) -> Path:
    shutil.copytree(CONFLICT, tmp_path / scope)
    return tmp_path


def _facts(graph: Graph, scope: str, **where: Any) -> list[dict[str, Any]]:
    rows = graph.read_text(
        "MATCH (f:Fact {scope: $scope}) OPTIONAL MATCH (p:Paragraph)-[:STATES]->(f) "
        "RETURN f {.*} AS fact, p.id AS stated ORDER BY f.documentId, f.order",
        {"scope": scope},
    )
    facts = [{**r["fact"], "stated": r["stated"]} for r in rows]
    return [f for f in facts if all(f.get(k) == v for k, v in where.items())]


def _signature(fact: dict[str, Any]) -> tuple[Any, ...]:
    return (fact["documentId"], fact["paragraphId"], fact["kind"], fact["key"], fact["norm"],
            tuple(fact["conditions"]), fact["valueStart"], fact["line"])  # fmt: skip


def test_ingest_writes_the_facts_the_scan_finds(
    settings: Settings, graph: Graph, embedder: SentenceTransformerEmbedder, scope: str,
    tmp_path: Path,
) -> None:  # fmt: skip
    assert ingest(graph, embedder, _kb(tmp_path, scope), IngestOptions(), settings.ingest).added
    nodes = _facts(graph, scope, current=True, listNumber=False)
    assert nodes and all(f["stated"] == f["paragraphId"] for f in nodes)
    # The scan's facts of each document read alone, extracted from the text (not from the
    # analysis stored with it).
    for document_id in sorted({f["documentId"] for f in nodes}):
        passages = [msgspec.structs.replace(passage_of(row), analysis=b"", facts=None)
                    for row in document_rows(graph, [document_id])]  # fmt: skip
        scanned = in_context(extract_facts(passages), passages)
        expected = {
            (f.document_id, f.paragraph_id, f.kind, f.key, f.norm,
             tuple(f"{d}={v}" for d, v in f.scope), f.value_start, f.line)
            for f in scanned
        }  # fmt: skip
        assert {_signature(f) for f in nodes if f["documentId"] == document_id} == expected
    tolerance = {f["value"] for f in nodes if f["key"] == "measurement:calibration tolerance"}
    assert {"±0.10 mm", "±0.50 mm"} <= tolerance


def test_the_scan_reads_the_fact_nodes_and_finds_what_the_text_gives(
    settings: Settings, graph: Graph, embedder: SentenceTransformerEmbedder, scope: str,
    tmp_path: Path,
) -> None:  # fmt: skip
    """The scan groups the Fact nodes read with the paragraphs, takes each document's words,
    names and figures from its stored profile, and decodes only the analyses of paragraphs
    whose facts can meet another value; what it finds is what the stored analyses give, and
    what the text gives."""
    for suite in ("ragconflict", "ragfullscan", "ragplatformqualifier", "ragidentitymulticonflict"):
        shutil.copytree(project_root() / "knowledge_base" / suite, tmp_path / scope,
                        dirs_exist_ok=True)  # fmt: skip
    assert ingest(graph, embedder, tmp_path, IngestOptions(), settings.ingest).added
    query = "MATCH (d:Document {scope: $scope}) RETURN d.id AS id ORDER BY d.path"
    rows = document_rows(graph, [r["id"] for r in graph.read_text(query, {"scope": scope})])
    passages = [passage_of(row) for row in rows]
    profiles = stored_profiles(rows)
    assert all(p.facts is not None for p in passages)
    assert profiles.keys() == {p.document_id for p in passages}
    assert profiles == {d: document_profile([p for p in passages if p.document_id == d])
                        for d in profiles}  # fmt: skip

    forget_decoded()
    from_nodes = scan_conflicts(passages, settings.conflicts, profiles=profiles)
    decoded = decode_analysis.cache_info().misses  # distinct paragraphs, if none was evicted
    from_analyses = scan_conflicts([msgspec.structs.replace(p, facts=None) for p in passages],
                                   settings.conflicts)  # fmt: skip
    from_text = scan_conflicts(
        [msgspec.structs.replace(p, facts=None, analysis=b"") for p in passages],
        settings.conflicts,
    )
    assert from_nodes.conflicts and from_nodes.qualified
    assert from_nodes == from_analyses == from_text
    contested = {f.paragraph_id for c in from_nodes.conflicts for f in c.sides}
    assert len(contested) <= decoded < len(passages) / 2  # the contested paragraphs' analyses


def test_a_document_past_the_fact_cap_is_scanned_from_its_analyses(
    settings: Settings, graph: Graph, embedder: SentenceTransformerEmbedder, scope: str,
    tmp_path: Path,
) -> None:  # fmt: skip
    """Ingest cut its facts at the per-document cap over all its paragraphs, so the scan does
    not trust its nodes (a scan without some paragraph would cut elsewhere) and reads its
    stored analyses, finding what the text gives."""
    cap = settings.conflicts.facts.max_facts_per_document
    # Subjects named by words (a figure in a subject is no part of its key): "baba", "babe", ...
    syllables = [c + v for c in "bdfgklmnprst" for v in "aeiou"][:21]
    names = [a + b for a in syllables for b in syllables]
    sentences = [f"The {name} clamp force is {100 + n} N." for n, name in enumerate(names)]
    assert len(sentences) > cap
    paragraphs = [
        "# Clamps",
        *(" ".join(sentences[i : i + 10]) for i in range(0, len(sentences), 10)),
    ]
    (tmp_path / scope).mkdir()
    (tmp_path / scope / "clamps.md").write_text("\n\n".join(paragraphs) + "\n")
    (tmp_path / scope / "remote-clamps.md").write_text(
        f"# Remote clamps\n\nThe {names[3]} clamp force is 250 N.\n"
    )
    assert ingest(graph, embedder, tmp_path, IngestOptions(), settings.ingest).added
    assert len(_facts(graph, scope, current=True)) == cap + 1
    query = "MATCH (d:Document {scope: $scope}) RETURN d.id AS id ORDER BY d.path"
    rows = document_rows(graph, [r["id"] for r in graph.read_text(query, {"scope": scope})])
    passages = [passage_of(row) for row in rows]
    capped = {p.document_id for p in passages if p.path.endswith("/clamps.md")}
    assert all((p.facts is None) == (p.document_id in capped) for p in passages)
    found = scan_conflicts(passages, settings.conflicts, profiles=stored_profiles(rows))
    text = [msgspec.structs.replace(p, facts=None, analysis=b"") for p in passages]
    assert found == scan_conflicts(text, settings.conflicts)
    assert [c.values for c in found.conflicts] == [("103 N", "250 N")]


def test_a_new_version_replaces_facts_and_history_keeps_the_old(
    settings: Settings, graph: Graph, embedder: SentenceTransformerEmbedder, scope: str,
    tmp_path: Path,
) -> None:  # fmt: skip
    root = _kb(tmp_path, scope)
    ingest(graph, embedder, root, IngestOptions(), settings.ingest)
    first = _facts(graph, scope, current=True)
    again = ingest(graph, embedder, root, IngestOptions(), settings.ingest)
    assert len(again.unchanged) == 2 and again.writes.nodes_created == 0
    assert _facts(graph, scope, current=True) == first  # an unchanged document: nothing written

    page = root / scope / TOLERANCE
    page.write_text(page.read_text().replace("±0.50 mm", "±0.10 mm"))
    remote = root / scope / f"remote-{TOLERANCE}"
    remote.write_text(remote.read_text().replace("+/-0.50 mm", "+/-0.10 mm"))
    assert len(ingest(graph, embedder, root, IngestOptions(), settings.ingest).updated) == 2
    # The second page written left the subject with one value: the feed says so, once.
    events = graph.read("api/changes_page", scope=scope, after=0, limit=100)
    resolved = [e for e in events if e["kind"] == "conflictResolved"]
    assert [e["subjects"] for e in resolved] == [["measurement:calibration tolerance"]]
    assert resolved[0]["newVersion"] == 2 and resolved[0]["oldVersion"] == 1
    changed = graph.read("api/document", id=_document_id(graph, scope, TOLERANCE))[0]
    assert changed["version"] == 2
    old = _facts(graph, scope, documentId=changed["id"], version=1)
    new = _facts(graph, scope, documentId=changed["id"], version=2, current=True)
    assert old and all(not f["current"] and f["stated"] is None for f in old)
    assert "±0.50 mm" in {f["value"] for f in old}
    assert new and "±0.50 mm" not in {f["value"] for f in new}
    assert all(f["stated"] == f["paragraphId"] for f in new)

    released = apply_retention(graph, VersionSettings(keep_last=1, keep_age_s=0), scope=scope)
    assert released.released == 2  # version 1 of both pages
    assert not [f for f in _facts(graph, scope) if f["version"] == 1 and not f["current"]]

    purge(graph, new[0]["documentId"])
    assert not _facts(graph, scope, documentId=new[0]["documentId"])


def _document_id(graph: Graph, scope: str, name: str) -> str:
    rows = graph.read_text("MATCH (d:Document {scope: $scope, path: $path}) RETURN d.id AS id",
                           {"scope": scope, "path": f"{scope}/{name}"})  # fmt: skip
    return str(rows[0]["id"])


def test_rebuild_gives_facts_to_documents_written_without_them(
    settings: Settings, graph: Graph, embedder: SentenceTransformerEmbedder, scope: str,
    tmp_path: Path, cli_env: dict[str, str],
) -> None:  # fmt: skip
    ingest(graph, embedder, _kb(tmp_path, scope), IngestOptions(), settings.ingest)
    written = sorted(map(_signature, _facts(graph, scope)))
    with graph.driver.session(database=graph.database) as session:  # as before facts were nodes
        session.run("MATCH (f:Fact {scope: $scope}) DETACH DELETE f", scope=scope).consume()
        session.run("MATCH (d:Document {scope: $scope}) REMOVE d.factLayout", scope=scope).consume()
    report = rebuild_facts(graph, scope, batch=1)  # one document a statement: resumes by marker
    assert (report.documents, report.facts) == (2, len(written))
    assert sorted(map(_signature, _facts(graph, scope))) == written
    run = subprocess.run([*KGS, "facts", "rebuild", "--scope", scope], env=cli_env,
                         capture_output=True, text=True, timeout=120)  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "0 documents given 0 facts" in run.stdout  # nothing left to do
    bad = subprocess.run([*KGS, "facts", "rebuild", "--scope", scope, "--batch", "0"],
                         env=cli_env, capture_output=True, text=True, timeout=120)  # fmt: skip
    assert bad.returncode == 2 and "--batch" in bad.stderr
