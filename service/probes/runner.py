"""`kgs probe CASES.yaml [--kb DIR]`: ingest the knowledge base, run every case through the
same pipeline the API uses, print a line per case and `N passed, M failed`.

A case's paraphrases are asked right after its query, through the same call with the same scope
and depth; their failures join the case's line, and a `paraphrases: ...` count line precedes the
summary."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ingest.embeddings import Embedder
from ingest.pipeline import IngestOptions, ingest
from service.db.graph import Graph
from service.probes.cases import ProbeCase, load_cases
from service.probes.checks import (
    check_case,
    check_paraphrase,
    format_result,
    paraphrase_summary_line,
    summary_line,
)
from service.question.runner import answer_question, stage_settings
from service.settings import Settings

__all__ = ["run_probes"]


def run_probes(
    graph: Graph,
    embedder: Embedder | None,
    cases_path: Path,
    kb: Path | None,
    settings: Settings,
    emit: Callable[[str], None] = print,
    *,
    scope_prefix: str = "",
) -> tuple[int, int]:
    """`scope_prefix` runs the cases against renamed copies of their scopes (the test suite
    uses it to own its data); cited paths are reported without the prefix."""
    probe_file = load_cases(cases_path)  # a malformed file fails before anything runs
    if kb is not None:
        report = ingest(graph, embedder, kb, IngestOptions(prune=True), settings.ingest)
        if report.failed_files:
            emit(f"warning: not ingested: {', '.join(report.failed_files)}")

    def ask(case: ProbeCase, question: str) -> dict[str, Any]:
        response = answer_question(
            graph,
            embedder,
            question,
            scope=scope_prefix + case.scope,
            depth=case.depth,
            **stage_settings(settings),
        )
        for citation in response["citations"]:
            citation["path"] = citation["path"].removeprefix(scope_prefix)
        return response

    passed = failed = gaps = paraphrases_passed = paraphrases_failed = 0
    for case in probe_file.cases:
        try:
            response = ask(case, case.query)
            failures = check_case(case, response)
        except Exception as error:  # one broken case must not hide the others' results
            failures = [f"error: {type(error).__name__}: {error}"]
            response = None
        for paraphrase in case.wordings:
            if response is None:
                own = [f"paraphrase {paraphrase!r}: not run, the query itself failed"]
            else:
                try:
                    own = check_paraphrase(case, paraphrase, response, ask(case, paraphrase))
                except Exception as error:  # as above, per paraphrase
                    own = [f"paraphrase {paraphrase!r}: error: {type(error).__name__}: {error}"]
            failures.extend(own)
            paraphrases_passed += not own
            paraphrases_failed += bool(own)
        emit(format_result(case.id, failures, case.known_gap))
        if not failures:
            passed += 1
        elif case.known_gap:
            gaps += 1
        else:
            failed += 1
    if paraphrases_passed or paraphrases_failed:
        emit(paraphrase_summary_line(paraphrases_passed, paraphrases_failed))
    emit(summary_line(passed, failed, gaps))
    return passed, failed
