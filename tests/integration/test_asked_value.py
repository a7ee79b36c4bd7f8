"""A typed question whose page states the value a sentence away from the words it repeats: the
answer quotes the value, is `answered`, and its trace says which sentence was sought for it
(service/answer/asked_value.py), against the real Neo4j."""

from __future__ import annotations

from pathlib import Path

from ingest.embeddings import SentenceTransformerEmbedder
from ingest.pipeline import IngestOptions, ingest
from service.db import Graph
from service.question.runner import answer_question
from service.settings import Settings

BORROWING = """# Borrowing Rules

## Who can borrow

Anyone who lives, works or studies in the district can get a library card for free. Children
under 14 need a parent or guardian to sign the application form. Replacement cards cost 3 EUR.

## Loan periods

| Item | Loan period | Items per card |
|------|-------------|----------------|
| Books | 3 weeks | 20 |
| DVDs and Blu-rays | 1 week | 5 |

E-books are borrowed through the Libby app and are returned automatically at the end of the loan.

## Interlibrary loans

Books we do not own can be requested from other library networks through the interlibrary loan
service. This service is run by Marta Kowalczyk at the information desk on the first floor. A fee
applies for each request.
"""
HOURS = """# Opening Hours

The Central Library is at Hafenstrasse 12, next to the tram stop. It is open Monday to Friday
from 9:00 to 20:00 and on Saturday from 10:00 to 16:00. It is closed on Sundays.
"""


def test_the_person_a_sentence_away_is_quoted_and_traced(
    graph: Graph, embedder: SentenceTransformerEmbedder, settings: Settings, scope: str,
    tmp_path: Path,
) -> None:  # fmt: skip
    pages = tmp_path / scope
    pages.mkdir()
    (pages / "borrowing-rules.md").write_text(BORROWING, encoding="utf-8")
    (pages / "opening-hours.md").write_text(HOURS, encoding="utf-8")
    ingest(graph, embedder, tmp_path, IngestOptions(), settings.ingest)

    question = "Who looks after requests for books from other library networks?"
    response = answer_question(graph, embedder, question, scope=scope)
    typed = response["trace"]["answerType"]
    assert response["status"] == "answered", response["answer"]
    assert "Marta Kowalczyk" in response["answer"]
    assert typed["outcome"] == "present" and typed["sought"], typed
    assert set(typed["sought"]) <= set(typed["sentences"])

    # A value the page gives for another day is not quoted as the asked one.
    closed = answer_question(graph, embedder, "What time does the library open on Sundays?",
                             scope=scope)  # fmt: skip
    assert closed["status"] != "answered", closed["answer"]
