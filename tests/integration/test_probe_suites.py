"""The shipped probe suites through `run_probes`, on renamed copies of the shipped knowledge base
(this test owns its scopes): pipeline.yaml (the evidence path), answers.yaml (the answer stages)
and conflicts.yaml (conflicting evidence).

Each case's paraphrases run too and count against the case: a paraphrase must reach the query's
decision (abstained, conflict, stale, or an answer: partial and answered count alike). A case
marked `known_gap` still runs and prints a GAP line but does not fail the suite; every other
case must pass."""

from __future__ import annotations

import shutil
import uuid
from pathlib import Path

import pytest

from ingest.embeddings import SentenceTransformerEmbedder
from service.db import Graph
from service.probes import load_cases
from service.probes.checks import summary_line
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
    gaps = [line for line in lines if line.startswith("GAP ")]
    assert lines[-1] == summary_line(passed, failed, len(gaps))
    assert failed == 0, "\n".join(line for line in lines if line.startswith("FAIL"))
    assert passed + len(gaps) == len(load_cases(cases_path).cases)
    known = {case.id for case in load_cases(cases_path).cases if case.known_gap}
    assert {line.split()[1] for line in gaps} <= known
