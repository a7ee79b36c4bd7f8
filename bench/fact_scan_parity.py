"""The conflict scan over Fact nodes and document profiles against the same scan over the text:
every finding must be the same (docs/health.md, "How the conflict scan reads them").

    .venv/bin/python bench/fact_scan_parity.py scopes [SCOPE ...]
    .venv/bin/python bench/fact_scan_parity.py probes

`scopes` reads each scope's documents twelve at a time (all scopes in the graph but the bench
and fault-load ones when none is named), leaves out page furniture as the evidence path does,
and scans each group twice: once with the first three documents as focus, once without focus.
`probes` runs the shipped probe suites, each case with its paraphrases, on copies of their
scopes, and checks every scan the answers run. Each prints how many scans it compared, how many
differed, and how many findings (conflicts and qualified subjects) the scans made.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import uuid
from collections import Counter
from collections.abc import Collection, Iterable, Mapping
from pathlib import Path

import msgspec

import service.pipeline.augment as augment
from ingest.embeddings import SentenceTransformerEmbedder
from service.db import Graph, open_graph
from service.embedding_space import DEFAULT_SPACE
from service.pipeline.augment import (
    document_rows,
    passage_of,
    stored_profiles,
    without_furniture,
)
from service.pipeline.conflicts import ConflictScan, ConflictSettings, scan_conflicts
from service.probes import load_cases
from service.probes.runner import run_probes
from service.settings import Settings, project_root
from service.text.facts import DocumentProfile, Passage

SUITES = ("pipeline.yaml", "answers.yaml", "conflicts.yaml")
GROUP = 12  # documents scanned together


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("mode", choices=("scopes", "probes"))
    parser.add_argument("scopes", nargs="*")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    settings = Settings.from_env()
    graph, _, close = open_graph(settings)
    tally: Counter[str] = Counter()
    try:
        if args.mode == "scopes":
            _scopes(graph, args.scopes or _all_scopes(graph), settings.conflicts, tally)
        else:
            _probes(graph, settings, tally)
    finally:
        close()
    print(f"scans {tally['scans']}, differing {tally['differing']}, findings {tally['findings']}, "
          f"passages read with Fact nodes {tally['with nodes']} of {tally['passages']}, "
          f"documents with a stored profile {tally['profiles']}")  # fmt: skip


def _compare(
    passages: list[Passage],
    settings: ConflictSettings | None,
    tally: Counter[str],
    *,
    focus: Collection[str] | None = None,
    profiles: Mapping[str, DocumentProfile] | None = None,
) -> ConflictScan:
    found = scan_conflicts(passages, settings, focus=focus, profiles=profiles)
    text = [msgspec.structs.replace(p, facts=None, analysis=b"") for p in passages]
    tally["scans"] += 1
    tally["differing"] += found != scan_conflicts(text, settings, focus=focus)
    tally["findings"] += len(found.conflicts) + len(found.qualified)
    tally["passages"] += len(passages)
    tally["with nodes"] += sum(p.facts is not None for p in passages)
    tally["profiles"] += len(profiles or {})
    return found


def _all_scopes(graph: Graph) -> list[str]:
    rows = graph.read_text("MATCH (d:Document) RETURN DISTINCT d.scope AS scope ORDER BY scope", {})
    return [s for s in (str(r["scope"]) for r in rows)
            if not s.startswith("bench-") and s != "faults-load"]  # fmt: skip


def _scopes(
    graph: Graph, scopes: Iterable[str], settings: ConflictSettings, tally: Counter[str]
) -> None:
    for scope in scopes:
        ids = [str(r["id"]) for r in graph.read_text(
            "MATCH (d:Document {scope: $scope}) RETURN d.id AS id ORDER BY d.path", {"scope": scope}
        )]  # fmt: skip
        for lo in range(0, len(ids), GROUP):
            rows, _ = without_furniture(document_rows(graph, ids[lo : lo + GROUP]))
            passages, profiles = [passage_of(r) for r in rows], stored_profiles(rows)
            for focus in (set(ids[lo : lo + 3]), None):
                _compare(passages, settings, tally, focus=focus, profiles=profiles)


def _probes(graph: Graph, settings: Settings, tally: Counter[str]) -> None:
    def checked(
        passages: Iterable[Passage],
        settings: ConflictSettings | None = None,
        *,
        focus: Collection[str] | None = None,
        profiles: Mapping[str, DocumentProfile] | None = None,
    ) -> ConflictScan:
        return _compare(list(passages), settings, tally, focus=focus, profiles=profiles)

    setattr(augment, "scan_conflicts", checked)  # every scan the answers run  # noqa: B010
    embedder = SentenceTransformerEmbedder(settings.embedding)
    for suite in SUITES:
        path = project_root() / "tests" / "probes" / suite
        scopes = sorted({case.scope for case in load_cases(path).cases})
        prefix = f"parity{uuid.uuid4().hex[:6]}-"
        lines: list[str] = []
        with tempfile.TemporaryDirectory() as tmp:
            for scope in scopes:
                shutil.copytree(project_root() / "knowledge_base" / scope,
                                Path(tmp) / f"{prefix}{scope}")  # fmt: skip
            try:
                run_probes(graph, embedder, path, Path(tmp), settings, lines.append,
                           scope_prefix=prefix)  # fmt: skip
            finally:
                for scope in scopes:
                    _delete_scope(graph, prefix + scope)
        print(f"{suite}: {lines[-1]}")


def _delete_scope(graph: Graph, scope: str) -> None:
    deleted = None
    while deleted != 0:
        result = graph.write("admin/delete_scope_batch", scope=scope, limit=5000)
        deleted = result.rows[0]["deleted"]
    graph.schema("scope/drop_paragraph_vector_index", indexName=DEFAULT_SPACE.scope_index(scope))


if __name__ == "__main__":
    main()
