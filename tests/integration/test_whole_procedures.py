"""Whole procedures for requests and how-to questions, on a product folder of the procedure
suite (tests/data/procedures) ingested the plain way, asked through the answer path."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from ingest.embeddings import SentenceTransformerEmbedder
from ingest.pipeline import IngestOptions, ingest
from service.db import Graph
from service.evaluation.suites import ProcedureCase, read_cases, steps_in_order
from service.question.runner import answer_question
from service.settings import Settings, project_root
from tests.integration.conftest import delete_scope

SUITE = project_root() / "tests" / "data" / "procedures"


@pytest.fixture(scope="module")
def irrigation(
    graph: Graph, settings: Settings, embedder: SentenceTransformerEmbedder,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[str]:  # fmt: skip
    scope = f"proc{uuid.uuid4().hex[:6]}"
    root: Path = tmp_path_factory.mktemp("kb")
    shutil.copytree(SUITE / "kb" / "irrigation", root / scope)
    ingest(graph, embedder, root, IngestOptions(), settings.ingest)
    yield scope
    delete_scope(graph, scope)


def _case(case_id: str) -> ProcedureCase:
    cases: list[ProcedureCase] = read_cases(SUITE / "cases.jsonl", ProcedureCase)
    return next(c for c in cases if c.id == case_id)


@pytest.mark.parametrize(
    ("case_id", "wording"),
    [
        # Requests with no how-to cue: the procedure was missing before they were read as one.
        ("irrigation-mount-controller", "hang the GreenLoop in my garage"),
        ("irrigation-seasonal-adjust", "water less in autumn without reprogramming every zone"),
        ("irrigation-manual-zone", "water the vegetable bed now outside the schedule"),
        # A how-to question, read as one before the change too.
        ("irrigation-rain-sensor", "How do I connect a rain sensor to the GreenLoop?"),
    ],
)
def test_every_step_in_order(
    graph: Graph, embedder: SentenceTransformerEmbedder, irrigation: str, case_id: str,
    wording: str,
) -> None:  # fmt: skip
    case = _case(case_id)
    response = answer_question(graph, embedder, wording, scope=irrigation, top_k=10, llm=False)
    found, whole = steps_in_order(response["answer"], case.steps)
    assert whole, (found, len(case.steps), response["answer"])
    assert response["status"] == "answered"
    assert {c["path"].split("/", 1)[1] for c in response["citations"]} == {case.file.split("/")[1]}
    # The trace says which procedure was given, among every block the search weighed, and why.
    search = response["trace"]["procedureSearch"]
    assert search["chosen"].startswith(f"{irrigation}/{case.file.split('/')[1]} > ")
    assert search["reason"].startswith("the best score")
    scored = [w for w in search["weighed"] if w["score"] is not None]
    assert scored and all(w["qualifies"] and w["path"] in search["searched"] for w in scored)
    [given] = [w for w in search["weighed"] if w["given"]]
    assert search["chosen"] == " > ".join([given["path"], *given["headingPath"]])


def test_a_question_asking_for_a_fact_gets_no_procedure(
    graph: Graph, embedder: SentenceTransformerEmbedder, irrigation: str
) -> None:
    """A question without a how-to cue is answered from its sentences, not with the steps of
    the procedure beside them."""
    case = _case("irrigation-mount-controller")
    response = answer_question(
        graph, embedder, "where must the indoor GreenLoop be mounted?", scope=irrigation,
        top_k=10, llm=False,
    )  # fmt: skip
    found, _ = steps_in_order(response["answer"], case.steps)
    assert found < len(case.steps), response["answer"]
    # It asks for a place, so no procedure is even looked for, and the trace says so.
    assert response["trace"]["procedureSearch"] is None
