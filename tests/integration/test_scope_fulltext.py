"""A scope's full-text scores depend on that scope alone (issue 19): a small scope is scored
exactly with its own statistics, a large one in its own full-text index; ingesting another scope
that shares the questions' words changes neither hits nor statuses."""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ingest.embeddings import SentenceTransformerEmbedder
from ingest.pipeline import IngestOptions, ingest
from service.db import Graph
from service.pipeline.lexical import exact_fulltext, query_clauses
from service.pipeline.lucene import lucene_clauses, lucene_query
from service.pipeline.plan import plan_query
from service.pipeline.retrieval import retrieve_spans
from service.pipeline.scope_words import plan_in_scope_words
from service.question.runner import answer_question
from service.scope import scope_fulltext_index
from service.settings import IngestSettings, PipelineSettings
from tests.integration.conftest import delete_scope

BEES = {
    "inspection.md": """# Hive inspection

A beekeeper inspects each hive every seven to ten days in spring, looking for eggs, queen
cells and signs of disease in the brood frames.

Smoke is puffed gently at the entrance before the lid is lifted; it calms the colony.
""",
    "extraction.md": """# Honey extraction

Honey is extracted once most cells on a frame are capped with wax. The cappings are cut off
with a warm knife and the frames are spun in an extractor.

The honey is strained through a fine mesh and left to settle before it is jarred.
""",
    "swarming.md": """# Swarm control

A colony swarms when the hive is crowded: the old queen leaves with half of the bees.

Adding a super early in the season and removing queen cells delays swarming.
""",
    "varroa.md": """# Varroa mites

Varroa mites feed on bee larvae and spread viruses through the colony.

Mite counts are checked with a sugar roll; oxalic acid treats the colony in winter when no
brood is present.
""",
    "winter.md": """# Winter feeding

In winter the bees cluster around the queen and eat stored honey.

A colony light on stores is given fondant or thick sugar syrup before the cold sets in.
""",
    "wax.md": """## Wax rendering

Old comb is melted in a solar wax extractor; the clean wax is poured into moulds.
""",
}
QUESTIONS = (
    "how often should a beekeeper inspect the hive?",
    "how is honey extracted from the frames?",
    "why does a colony swarm and how is swarming delayed?",
    "how are varroa mites treated in winter?",
    "what do bees eat in winter?",
    "how is old comb rendered into wax?",
    "what is the boiling point of mercury?",
)
SHARED = ("hive", "honey", "bees", "queen", "swarm", "winter", "wax", "varroa", "frames",
          "colony", "inspect", "extracted", "mites", "comb", "beekeeper")  # fmt: skip


def _write(root: Path, scope: str, files: dict[str, str]) -> None:
    folder = root / scope
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.md"):
        old.unlink()
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")


def _large_vocabulary(documents: int, seed: int = 19) -> dict[str, str]:
    """Many paragraphs with a wide vocabulary that use the questions' words at other rates."""
    rng = random.Random(seed)
    words = ["".join(rng.choice("bcdfghklmnprstvz") + rng.choice("aeiou") for _ in range(3))
             for _ in range(3000)]  # fmt: skip
    files = {}
    for d in range(documents):
        paragraphs = []
        for _ in range(3):
            body = rng.sample(words, rng.randint(20, 90)) + rng.sample(SHARED, rng.randint(1, 6))
            rng.shuffle(body)
            paragraphs.append(" ".join(body).capitalize() + ".")
        title = f"# {' '.join(rng.sample(SHARED, 2)).title()} {d}"
        files[f"doc{d:03d}.md"] = "\n\n".join([title, *paragraphs]) + "\n"
    return files


@pytest.fixture
def scopes(graph: Graph) -> Iterator[list[str]]:
    """Fresh scope names; each is deleted afterwards with its own indexes."""
    names: list[str] = []
    yield names
    for name in names:
        delete_scope(graph, name)
        graph.schema("scope/drop_paragraph_fulltext_index", indexName=scope_fulltext_index(name))


def _new_scope(names: list[str]) -> str:
    names.append(f"test-{uuid.uuid4().hex[:10]}")
    return names[-1]


def _answers(graph: Graph, embedder: SentenceTransformerEmbedder, scope: str) -> list[Any]:
    """Per question: status and the fused hits (paragraph, score, per-channel ranks)."""
    out = []
    for question in QUESTIONS:
        response = answer_question(graph, embedder, question, scope=scope, llm=False)
        hits = [(h["paragraphId"], h["score"], h["ranks"])
                for h in response["trace"]["retrieval"]["hits"]]  # fmt: skip
        out.append((question, response["status"], hits))
    return out


def _fulltext_scores(graph: Graph, scope: str) -> list[list[tuple[str, str, float]]]:
    """The full-text channel's own BM25 rows, before any fusion."""
    out = []
    for question in QUESTIONS:
        terms = plan_query(question, scope).terms
        clauses = query_clauses(terms, [])
        out.append(exact_fulltext(graph, scope, lucene_query(scope, terms, []), clauses, 40))
    return out


def _shared_index_scores(graph: Graph, scope: str) -> list[list[tuple[str, float]]]:
    """What the channel ranked by before: the shared index's own index-wide BM25."""
    out = []
    for question in QUESTIONS:
        lucene = lucene_query(scope, plan_query(question, scope).terms, [])
        rows = graph.read_text(
            "CALL db.index.fulltext.queryNodes('paragraph_search', $lucene, {limit: 40}) "
            "YIELD node, score RETURN node.id AS id, score",
            {"lucene": lucene},
        )
        out.append([(r["id"], r["score"]) for r in rows])
    return out


def test_small_scope_hits_and_statuses_do_not_depend_on_other_scopes(
    graph: Graph, embedder: SentenceTransformerEmbedder, scopes: list[str], tmp_path: Path
) -> None:
    small, other = _new_scope(scopes), _new_scope(scopes)
    _write(tmp_path / "a", small, BEES)
    ingest(graph, embedder, tmp_path / "a", IngestOptions(), IngestSettings())
    before = _answers(graph, embedder, small)
    scores = _fulltext_scores(graph, small)
    shared = _shared_index_scores(graph, small)
    assert any("fulltext" in ranks for _, _, hits in before for _, _, ranks in hits)
    assert {status for _, status, _ in before} != {"abstained"}

    _write(tmp_path / "b", other, _large_vocabulary(60))
    ingest(graph, embedder, tmp_path / "b", IngestOptions(), IngestSettings())
    # The other scope moved the shared index's statistics, so this comparison can fail ...
    assert _shared_index_scores(graph, small) != shared
    # ... and the scope's own scores, hits and statuses stay exactly what they were.
    assert _fulltext_scores(graph, small) == scores
    assert _answers(graph, embedder, small) == before


def test_paragraphs_written_without_tokens_score_the_same(
    graph: Graph, scopes: list[str], tmp_path: Path
) -> None:
    """Paragraphs of an older ingest lack the stored tokens: retrieval tokenises them itself."""
    scope = _new_scope(scopes)
    _write(tmp_path, scope, BEES)
    ingest(graph, None, tmp_path, IngestOptions(), IngestSettings())
    scores = _fulltext_scores(graph, scope)
    assert any(scores)
    with graph.driver.session(database=graph.database) as session:
        session.run(
            "MATCH (d:Document {scope: $scope}) WHERE d.path ENDS WITH 'extraction.md' "
            "OR d.path ENDS WITH 'winter.md' "
            "REMOVE d.lexicalStats "
            "WITH d MATCH (p:Paragraph {documentId: d.id}) "
            "REMOVE p.textTokens, p.textTokenCount, p.headingTokens, p.headingTokenCount",
            scope=scope,
        ).consume()
    assert _fulltext_scores(graph, scope) == scores
    unanalysed = graph.read(
        "retrieval/fulltext_paragraphs_exact", scope=scope, patterns=[" honey "],
        lucene=lucene_query(scope, ["honey"], []),
    )  # fmt: skip
    assert unanalysed[0]["unanalysed"] == 2


def test_large_scope_is_searched_in_its_own_fulltext_index(
    graph: Graph, embedder: SentenceTransformerEmbedder, scopes: list[str], tmp_path: Path
) -> None:
    """Thresholds lowered so that a dozen paragraphs count as large."""
    ingest_settings = IngestSettings(
        scope_fulltext_index_min_paragraphs=6, scope_vector_index_min_paragraphs=1_000_000
    )
    pipeline = PipelineSettings(exact_fulltext_max_paragraphs=6)
    large, other = _new_scope(scopes), _new_scope(scopes)
    index = scope_fulltext_index(large)
    _write(tmp_path / "a", large, BEES)
    ingest(graph, None, tmp_path / "a", IngestOptions(prune=True), ingest_settings)
    assert [r["state"] for r in graph.read("scope/fulltext_index_state", indexName=index)] == [
        "ONLINE"
    ]

    plan = plan_query(QUESTIONS[1], large)
    retrieval = retrieve_spans(graph.child(), plan, None, pipeline)
    assert retrieval.fulltext_mode == "scope_index"
    assert "scopeKey" not in retrieval.lucene
    assert retrieval.hits[0].path == f"{large}/extraction.md"
    assert {h.path.split("/")[0] for h in retrieval.hits} == {large}

    def own_index_rows() -> list[list[dict[str, Any]]]:
        return [
            graph.read("retrieval/fulltext_paragraphs_scope_index", indexName=index,
                       lucene=lucene_clauses(plan_query(q, large).terms, []), scope=large,
                       limit=40)
            for q in QUESTIONS
        ]  # fmt: skip

    # The typo read (scope_words) asks the same own index: a slip is still corrected to the
    # scope's word, and the shared index is not read.
    run = graph.child()
    typo = plan_in_scope_words(run, plan_query("how is honey extarcted?", large), pipeline)
    assert "extracted" in typo.terms and typo.spelling == (("extarcted", "extracted"),)
    read = [c.statement for c in run.calls]
    assert "retrieval/scope_words_scope_index" in read and "retrieval/scope_words" not in read

    rows = own_index_rows()
    assert any(rows)
    _write(tmp_path / "b", other, _large_vocabulary(20))
    ingest(graph, None, tmp_path / "b", IngestOptions(), IngestSettings())
    assert own_index_rows() == rows  # the other scope is in the shared index, not in this one

    # Shrunk below the threshold: the index goes, and retrieval (whose cached size still says
    # large) falls back to the exact scores.
    _write(tmp_path / "a", large, {"extraction.md": BEES["extraction.md"]})
    ingest(graph, None, tmp_path / "a", IngestOptions(prune=True), ingest_settings)
    assert not graph.read("scope/fulltext_index_state", indexName=index)
    retrieval = retrieve_spans(graph.child(), plan, None, pipeline)
    assert retrieval.fulltext_mode == "exact"
    assert retrieval.hits[0].path == f"{large}/extraction.md"
    run = graph.child()
    typo = plan_in_scope_words(run, plan_query("how is honey extarcted?", large), pipeline)
    assert "extracted" in typo.terms
    assert "retrieval/scope_words" in [c.statement for c in run.calls]
