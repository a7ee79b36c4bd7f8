"""Concurrent writers on one scope of the shared test Neo4j, at the library level the CLI and the
API both call (`ingest`, `purge_document`), WITHOUT the API's per-scope lock: only Neo4j's
transactions keep the graph whole. Readers run beside the writers and must never see a document
with paragraphs of two versions; afterwards no duplicate or orphan node may remain."""

from __future__ import annotations

import contextlib
import random
import tempfile
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from ingest.pipeline import IngestOptions, IngestReport, ingest
from ingest.units import document_id
from ingest.writer import DocumentGone, prune_knowledge_points, purge_document
from service.db import Graph
from service.settings import Settings
from tests.integration.conftest import delete_scope

DOCUMENTS = 24
ROUNDS = 12  # upload/delete rounds per thread
READS_MAX = 2000  # reader loop bound


def _document(number: int, version: int) -> str:
    target = f"topic-{(number + 1) % DOCUMENTS}"
    paragraphs = "\n\n".join(
        f"Topic {number} paragraph {k} of version {version} says something specific."
        for k in range(3 + version)  # versions differ in paragraph count and text
    )
    return (
        f"---\nid: topic-{number}\ntitle: Topic {number}\naliases: [subject {number}]\n"
        f"relations:\n  - {{type: PRECEDES, target: {target}, confidence: 0.7}}\n---\n"
        f"# Topic {number}\n\n{paragraphs}\n\n## Details\n\nDetail of topic {number}, v{version}.\n"
    )


def _write_kb(root: Path, scope: str, version: int) -> Path:
    folder = root / f"v{version}" / scope
    folder.mkdir(parents=True, exist_ok=True)
    for number in range(DOCUMENTS):
        (folder / f"topic-{number}.md").write_text(_document(number, version), encoding="utf-8")
    return folder.parent


def _paragraph_ids(graph: Graph, path: str) -> frozenset[str]:
    return frozenset(str(r["id"]) for r in graph.read("explore/document_paragraphs", path=path))


def _one_version(ids: frozenset[str], versions: tuple[frozenset[str], ...]) -> bool:
    """A read shows one version: all of it, or (a torn read, below) part of exactly one."""
    return not ids or any(ids <= version for version in versions)


def _state(graph: Graph, scope: str) -> dict[str, frozenset[str]]:
    return {
        f"{scope}/topic-{n}.md": _paragraph_ids(graph, f"{scope}/topic-{n}.md")
        for n in range(DOCUMENTS)
    }


def _counts(graph: Graph, scope: str) -> dict[str, int]:
    return {r["label"]: int(r["nodes"]) for r in graph.read("explore/scope_overview", scope=scope)}


def _relations(graph: Graph, scope: str) -> list[tuple[Any, ...]]:
    return sorted((r["source"], r["type"], r["target"], r["confidence"], r["provenance"])
                  for r in graph.read("explore/scope_relations", scope=scope))  # fmt: skip


class _Reader:
    """Reads random documents' paragraph sets until stopped; one query per read.

    Neo4j reads at READ COMMITTED: a paragraph found through the index just before a concurrent
    delete commits has lost its properties. The read statements drop such rows (a row with a
    null property would reach the pipeline as text None), so a read may show part of the one
    version being deleted (counted as torn by the tests), never a null row."""

    def __init__(self, graph: Graph, paths: list[str]) -> None:
        self.graph, self.paths = graph, paths
        self.seen: list[tuple[str, frozenset[str]]] = []
        self.null_rows = 0  # rows of a paragraph deleted under the read: must stay 0
        self.stop = threading.Event()
        self.errors: list[BaseException] = []

    def run(self) -> None:
        chooser = random.Random(7)
        try:
            while not self.stop.is_set() and len(self.seen) < READS_MAX:
                path = chooser.choice(self.paths)
                rows = self.graph.read("explore/document_paragraphs", path=path)
                ids = frozenset(str(r["id"]) for r in rows if r["id"] is not None)
                self.null_rows += sum(r["id"] is None or r["text"] is None for r in rows)
                self.seen.append((path, ids))
        except BaseException as error:  # reported by the test
            self.errors.append(error)


def _concurrently(*work: Callable[[], Any], reader: _Reader) -> list[Any]:
    thread = threading.Thread(target=reader.run, daemon=True)
    thread.start()
    try:
        with ThreadPoolExecutor(max_workers=len(work)) as pool:
            return [f.result() for f in [pool.submit(w) for w in work]]
    finally:
        reader.stop.set()
        thread.join(timeout=60)


def test_two_concurrent_ingests_of_one_knowledge_base(
    graph: Graph, settings: Settings, scope: str, tmp_path: Path
) -> None:
    v1, v2 = _write_kb(tmp_path, scope, 1), _write_kb(tmp_path, scope, 2)
    options = IngestOptions(prune=True)
    # Sequential references: each version's paragraph ids, counts and relations.
    ingest(graph, None, v1, options, settings.ingest)
    one, counts_one, relations_one = _state(graph, scope), _counts(graph, scope), \
        _relations(graph, scope)  # fmt: skip
    ingest(graph, None, v2, options, settings.ingest)
    two, counts_two = _state(graph, scope), _counts(graph, scope)
    assert all(one[p] and two[p] and not one[p] & two[p] for p in one)
    paths = sorted(one)

    delete_scope(graph, scope)  # the same knowledge base twice at once, from nothing
    reader = _Reader(graph, paths)
    reports: list[IngestReport] = _concurrently(
        lambda: ingest(graph, None, v1, options, settings.ingest),
        lambda: ingest(graph, None, v1, options, settings.ingest),
        reader=reader,
    )
    assert not reader.errors and all(not r.failed_files for r in reports)
    assert _state(graph, scope) == one
    assert _counts(graph, scope) == counts_one  # no duplicate or orphan node
    assert _relations(graph, scope) == relations_one
    assert all(ids <= one[path] for path, ids in reader.seen)

    # Two versions of the same knowledge base at once: each document ends at one version.
    reader = _Reader(graph, paths)
    _concurrently(
        lambda: ingest(graph, None, v2, options, settings.ingest),
        lambda: ingest(graph, None, v1, options, settings.ingest),
        reader=reader,
    )
    final = _state(graph, scope)
    assert all(final[p] in (one[p], two[p]) for p in paths)
    mixed = [(p, ids) for p, ids in reader.seen if not _one_version(ids, (one[p], two[p]))]
    assert not reader.errors and mixed == [] and len(reader.seen) > 0
    assert reader.null_rows == 0
    torn = sum(ids not in (frozenset(), one[p], two[p]) for p, ids in reader.seen)
    expected = sum(len(final[p]) for p in paths)
    assert _counts(graph, scope)["Paragraph"] == expected
    assert _counts(graph, scope)["Document"] == counts_two["Document"] == DOCUMENTS
    print(f"\nconcurrent ingests: {len(reader.seen)} reads, none mixed, {torn} torn, 0 null rows")


def test_concurrent_upload_and_delete_of_one_document(
    graph: Graph, settings: Settings, scope: str
) -> None:
    path = f"{scope}/topic-0.md"
    doc_id = document_id(scope, path)
    versions: dict[int, frozenset[str]] = {}
    for version in (1, 2):  # references, ingested like an upload (one file, one scope)
        versions[version] = _upload(graph, settings, scope, version)
    assert versions[1] != versions[2]
    purge_document(graph, doc_id)

    def uploader() -> int:
        for round_number in range(ROUNDS):
            _upload(graph, settings, scope, 1 + round_number % 2)
        return ROUNDS

    def deleter() -> int:
        for _ in range(ROUNDS):
            with contextlib.suppress(DocumentGone):  # purged already, not uploaded again yet
                purge_document(graph, doc_id)
            prune_knowledge_points(graph, scope)
        return ROUNDS

    reader = _Reader(graph, [path])
    _concurrently(uploader, deleter, reader=reader)
    allowed: tuple[frozenset[str], ...] = (frozenset(), versions[1], versions[2])
    mixed = [ids for _, ids in reader.seen if not _one_version(ids, allowed)]
    assert not reader.errors and mixed == [] and reader.null_rows == 0
    torn = sum(ids not in allowed for _, ids in reader.seen)  # part of the version being deleted
    final = _paragraph_ids(graph, path)
    counts = _counts(graph, scope)
    documents = graph.read("api/documents_page", scopes=[scope], after="", limit=10,
                           statuses=["active"])  # fmt: skip
    assert final in allowed
    assert counts["Document"] == len(documents) == (1 if final else 0)
    assert counts["Paragraph"] == len(final)  # no orphan paragraph of a deleted version
    headings = 2 if final else 0  # "Topic 0" and "Details"
    assert counts["Heading"] == headings
    print(f"\nupload/delete race: {len(reader.seen)} reads, final "
          f"{'present' if final else 'deleted'}, none mixed, {torn} torn, 0 null rows")  # fmt: skip


def _upload(graph: Graph, settings: Settings, scope: str, version: int) -> frozenset[str]:
    """What the API's upload does, without its scope lock: ingest one file at its path."""
    with tempfile.TemporaryDirectory(prefix="kgs-race-") as folder:
        Path(folder, "topic-0.md").write_text(_document(0, version), encoding="utf-8")
        ingest(graph, None, Path(folder), IngestOptions(scope=scope), settings.ingest)
    return _paragraph_ids(graph, f"{scope}/topic-0.md")
