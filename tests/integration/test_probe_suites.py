"""The shipped probe suites through `run_probes`, on renamed copies of the shipped knowledge base
(this test owns its scopes). A suite joins this list when the issue that decides its behaviour
is done: pipeline.yaml (the evidence path) now; answers.yaml and conflicts.yaml later.

Each case's paraphrases run too and count against the case (a paraphrase that does not get the
query's status fails it): the suites stay honest while the answerability gate is refitted."""

from __future__ import annotations

import shutil
import uuid
from pathlib import Path

import pytest

from ingest.embeddings import SentenceTransformerEmbedder
from service.db import Graph
from service.probes import load_cases
from service.probes.runner import run_probes
from service.settings import Settings, project_root
from tests.integration.conftest import delete_scope

SUITES = ["pipeline.yaml", "answers.yaml", "conflicts.yaml"]


@pytest.mark.parametrize("suite", SUITES)
def test_probe_suite_passes(
    graph: Graph, settings: Settings, embedder: SentenceTransformerEmbedder, tmp_path: Path,
    suite: str,
) -> None:  # fmt: skip
    cases_path = project_root() / "tests" / "probes" / suite
    scopes = sorted({case.scope for case in load_cases(cases_path).cases})
    prefix = f"p{uuid.uuid4().hex[:6]}-"
    for scope in scopes:
        shutil.copytree(project_root() / "knowledge_base" / scope, tmp_path / f"{prefix}{scope}")
    lines: list[str] = []
    try:
        passed, failed = run_probes(
            graph, embedder, cases_path, tmp_path, settings, lines.append, scope_prefix=prefix
        )
    finally:
        for scope in scopes:
            delete_scope(graph, prefix + scope)
    print("\n".join(lines))  # one line per case in the test log
    assert lines[-1] == f"{passed} passed, {failed} failed"
    assert failed == 0, "\n".join(line for line in lines if line.startswith("FAIL"))
    assert passed == len(load_cases(cases_path).cases)
