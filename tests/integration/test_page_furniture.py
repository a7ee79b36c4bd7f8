"""A manual converted from PDF keeps its running heads as paragraphs; they never reach an answer
or its citations, and the procedure beside them is still whole."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from ingest.embeddings import SentenceTransformerEmbedder
from ingest.pipeline import IngestOptions, ingest
from service.db import Graph
from service.evaluation.suites import steps_in_order
from service.question.runner import answer_question
from service.settings import Settings
from tests.integration.conftest import delete_scope

PAGES = {
    "wireless-charging.md": (
        "# Wireless charging\n\nKestrel K2 User Manual 10\n\n"
        "The phone has a built-in wireless charging coil and charges on any Qi charger.\n\n"
        "1. Place the centre of the back of the phone on the charger.\n"
        "2. Check the charging status on the screen.\n"
        "3. Lift the phone off when the battery is full.\n\n"
        "Kestrel K2 User Manual 11\n\n"
        "A full wireless charge takes about three hours.\n"
    ),
    "screen-timeout.md": (
        "# Screen timeout\n\nKestrel K2 User Manual 41\n\n"
        "The screen turns off after 30 seconds without a touch. Open Settings and tap Display "
        "to choose a longer timeout.\n"
    ),
}


@pytest.fixture(scope="module")
def manual(
    graph: Graph, settings: Settings, embedder: SentenceTransformerEmbedder,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[str]:  # fmt: skip
    scope = f"furn{uuid.uuid4().hex[:6]}"
    root: Path = tmp_path_factory.mktemp("kb")
    (root / scope).mkdir()
    for name, text in PAGES.items():
        (root / scope / name).write_text(text, encoding="utf-8")
    ingest(graph, embedder, root, IngestOptions(), settings.ingest)
    yield scope
    delete_scope(graph, scope)


@pytest.mark.parametrize(
    "question",
    ["How do I charge the phone wirelessly?", "How long does a wireless charge take?"],
)
def test_running_heads_never_reach_the_answer(
    graph: Graph, embedder: SentenceTransformerEmbedder, manual: str, question: str
) -> None:
    response = answer_question(graph, embedder, question, scope=manual, top_k=10, llm=False)
    assert response["status"] == "answered", response["answer"]
    assert "User Manual" not in response["answer"]
    assert all("User Manual" not in c["quote"] for c in response["citations"])


def test_the_procedure_between_running_heads_is_whole(
    graph: Graph, embedder: SentenceTransformerEmbedder, manual: str
) -> None:
    response = answer_question(
        graph, embedder, "How do I charge the phone wirelessly?", scope=manual, top_k=10,
        llm=False,
    )  # fmt: skip
    steps = ("Place the centre", "Check the charging status", "Lift the phone off")
    assert steps_in_order(response["answer"], steps) == (3, True), response["answer"]
