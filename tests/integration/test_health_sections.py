"""The health report's sections against the real Neo4j: small Markdown documents ingested into a
scope of their own; near keys, stubs, tickets and answer records set up as ingest, the gap flow
and the answer recorder leave them."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import pytest

from ingest.pipeline import IngestOptions, ingest
from service.db import Graph
from service.escalations import (
    DraftContent,
    confirm_draft,
    create_draft,
    record_recheck,
    resolve_ticket,
)
from service.graph_model import RELATION_TYPES
from service.health import (
    SECTIONS,
    InvalidHealthRequest,
    SectionPage,
    dangling_relations,
    expired_pages,
    health_section,
    near_duplicate_paragraphs,
    open_gaps,
    undescribed_points,
)
from service.health.sections import EXCERPT_CHARS, NEAR_DUPLICATE_SIMILARITY
from service.settings import HealthSettings, Settings
from service.text.near_keys import near_keys
from tests.integration.conftest import delete_scope

T = TypeVar("T")

DUPLICATED = (
    "Store the opened drum of water glass in a cool dry room, keep the lid tight between uses, "
    "and stir the liquid slowly before pouring so that the denser layer at the bottom mixes "
    "back in; a skin on the surface means air reached it and the top layer should be removed."
)
EDITED = DUPLICATED.replace("cool dry room", "cool dark room")
UNRELATED = (
    "The bibliography lists the handbooks, safety data sheets and standards cited across this "
    "knowledge base, with the edition each one refers to, so that a reader can check a figure "
    "against its source and see whether a newer edition changed the recommended values."
)
REPEATED = (
    "Rinse every cup twice with warm water after washing, let it drain upside down on the rack "
    "for at least ten minutes, and only then stack it, because trapped moisture leaves marks "
    "that look like residue of the cleaning agent even when the cup is perfectly clean."
)
REPEATED_EDITED = REPEATED.replace("warm water", "hot water")

DOCUMENTS = {
    "current.md": f"""---
id: current
title: Current handling
validUntil: 2099-01-01
relations:
  - {{type: PRECEDES, target: expired, confidence: 0.9}}
  - {{type: DEPENDS_ON, target: ghost, confidence: 0.8}}
---

# Current handling

{DUPLICATED}

{REPEATED}

{REPEATED_EDITED}
""",
    "expired.md": f"""---
id: expired
title: Old handling
validUntil: 2020-01-01
---

# Old handling

{EDITED}

{REPEATED}
""",
    "superseded.md": f"""---
id: superseded
title: Superseded handling
supersededBy: current
---

# Superseded handling

{DUPLICATED}
""",
    "both.md": """---
id: both
title: Expired and superseded
validUntil: 2021-06-30
supersededBy: current
---

# Expired and superseded

Short text.
""",
    "plain.md": f"""---
id: plain
title: Bibliography
knowledge_points:
  - {{id: orphan-term, title: Orphan term}}
  - {{id: current, title: Current handling}}
---

# Bibliography

{UNRELATED}
""",
    "glossary.md": """---
id: glossary
title: Glossary
knowledge_points:
  - {id: orphan-term, title: Orphan term}
  - {id: lonely-term, title: Lonely term}
---

# Glossary

Terms.
""",
    "gone.md": f"""---
id: gone
title: Withdrawn page
validUntil: 2020-01-01
knowledge_points:
  - {{id: withdrawn-term, title: Withdrawn term}}
---

# Withdrawn page

{DUPLICATED}
""",
}


@pytest.fixture(scope="module")
def scope(
    settings: Settings, graph: Graph, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """One scope holding every case; `gone.md` ingested, then withdrawn by a pruning run."""
    name = f"health-{uuid.uuid4().hex[:8]}"
    root = tmp_path_factory.mktemp("health-kb")
    for path, text in DOCUMENTS.items():
        (root / path).write_text(text, encoding="utf-8")
    try:
        report = ingest(graph, None, root, IngestOptions(scope=name), settings.ingest)
        assert len(report.added) == len(DOCUMENTS)
        (root / "gone.md").unlink()
        report = ingest(graph, None, root, IngestOptions(scope=name, prune=True), settings.ingest)
        assert report.removed == [f"{name}/gone.md"]
        _check_near_keys(graph, name)
        yield name
    finally:
        delete_scope(graph, name)


def _check_near_keys(graph: Graph, scope: str) -> None:
    """Ingest stored each paragraph's near keys, some of them keyed."""
    with graph.driver.session(database=graph.database) as session:
        rows = session.run(
            "MATCH (p:Paragraph {scope: $scope}) RETURN p.text AS text, p.nearKeys AS keys",
            scope=scope,
        ).data()
    assert all(r["keys"] == near_keys(r["text"]) for r in rows)
    assert any(r["keys"] for r in rows)


def _write(graph: Graph, text: str, **params: Any) -> None:
    with graph.driver.session(database=graph.database) as session:
        session.run(text, params).consume()


def _document_id(graph: Graph, scope: str, path: str) -> str:
    with graph.driver.session(database=graph.database) as session:
        record = session.run(
            "MATCH (d:Document {scope: $scope, path: $path}) RETURN d.id AS id",
            scope=scope, path=f"{scope}/{path}",
        ).single(strict=True)  # fmt: skip
        return str(record["id"])


def _all(read: Callable[[str | None, int], SectionPage[T]], limit: int) -> list[T]:
    """Every item, page by page: each page at most `limit`, the cursor moving forward."""
    items: list[T] = []
    after: str | None = None
    for _ in range(100):
        page = read(after, limit)
        assert len(page.items) <= limit
        items.extend(page.items)
        if page.next_after is None:
            return items
        assert after is None or page.next_after > after
        after = page.next_after
    raise AssertionError("the cursor never reached the end")


def test_expired_and_superseded_active_documents(graph: Graph, scope: str) -> None:
    page = expired_pages(graph, scope, today="2025-06-01", after=None, limit=50)
    assert page.next_after is None
    by_path = {item.path.removeprefix(f"{scope}/"): item for item in page.items}
    assert sorted(by_path) == ["both.md", "expired.md", "superseded.md"]  # gone.md: withdrawn
    assert by_path["expired.md"].reason == "expired"
    assert by_path["expired.md"].valid_until == "2020-01-01"
    assert by_path["superseded.md"].reason == "superseded"
    assert by_path["superseded.md"].superseded_by == "current"
    assert by_path["both.md"].reason == "superseded"
    assert by_path["expired.md"].document_id == _document_id(graph, scope, "expired.md")
    assert by_path["expired.md"].title == "Old handling"
    assert by_path["expired.md"].version == 1
    # Before the pages expired only the superseded ones are listed.
    early = expired_pages(graph, scope, today="2019-12-31", after=None, limit=50)
    assert {i.reason for i in early.items} == {"superseded"}
    assert len(early.items) == 2
    # Valid until the very day: not expired yet.
    on_the_day = expired_pages(graph, scope, today="2020-01-01", after=None, limit=50)
    assert "expired" not in {i.reason for i in on_the_day.items}


def test_expired_pages_page_by_path(graph: Graph, scope: str) -> None:
    whole = expired_pages(graph, scope, today="2025-06-01", after=None, limit=50).items
    paged = _all(lambda a, n: expired_pages(graph, scope, today="2025-06-01", after=a, limit=n), 1)
    assert paged == whole
    assert [i.path for i in whole] == sorted(i.path for i in whole)
    first = expired_pages(graph, scope, today="2025-06-01", after=None, limit=2)
    assert first.next_after == first.items[-1].path


def test_undescribed_points_are_declared_only(graph: Graph, scope: str) -> None:
    points = _all(lambda a, n: undescribed_points(graph, scope, after=a, limit=n), 1)
    by_id = {p.id: p for p in points}
    # current is declared by plain.md but described by current.md; withdrawn-term went with
    # its document; every document's own point is described.
    assert sorted(by_id) == ["lonely-term", "orphan-term"]
    orphan = by_id["orphan-term"]
    assert orphan.title == "Orphan term"
    assert [d.path for d in orphan.declared_in] == [f"{scope}/glossary.md", f"{scope}/plain.md"]
    assert orphan.declared_in_count == 2
    assert orphan.declared_in[0].document_id == _document_id(graph, scope, "glossary.md")
    assert [d.path for d in by_id["lonely-term"].declared_in] == [f"{scope}/glossary.md"]


def test_a_point_described_only_by_a_withdrawn_document_is_undescribed(
    graph: Graph, scope: str
) -> None:
    """Withdrawal removes the links; a describing link left to a withdrawn document (written
    before that) still does not count."""
    doc = _document_id(graph, scope, "gone.md")
    _write(
        graph,
        "MATCH (d:Document {id: $doc}) "
        "CREATE (:KnowledgePoint {scope: $scope, id: 'zz-ghost-page', title: 'Ghost'})"
        "-[:DESCRIBED_IN]->(d)",
        doc=doc, scope=scope,
    )  # fmt: skip
    try:
        ids = [p.id for p in undescribed_points(graph, scope, after=None, limit=50).items]
        assert "zz-ghost-page" in ids
    finally:
        _write(graph, "MATCH (k:KnowledgePoint {scope: $scope, id: 'zz-ghost-page'}) "
                      "DETACH DELETE k", scope=scope)  # fmt: skip


def test_dangling_relations_are_declared_relations_to_undefined_points(
    graph: Graph, scope: str
) -> None:
    """current.md declares DEPENDS_ON ghost, a point no page defines: ingest pruned the stub
    and its relation, and the report lists what the document declared. Then stubs as
    create_relations makes them (a run that stopped before pruning)."""
    listed = dangling_relations(graph, scope, after=None, limit=50).items
    assert [(r.source_id, r.type, r.target_id, r.stub_end, r.source_line, r.path)
            for r in listed] == [("current", "DEPENDS_ON", "ghost", "target", 7,
                                  f"{scope}/current.md")]  # fmt: skip
    doc = _document_id(graph, scope, "current.md")
    rows = [
        {"type": "DEPENDS_ON", "source": "current", "target": "ghost", "confidence": 0.8,
         "provenance": "front_matter", "sourceParagraphId": None, "sourceLine": 7},
        {"type": "IS_A", "source": "phantom", "target": "current", "confidence": 0.8,
         "provenance": "mermaid", "sourceParagraphId": "p_diagram", "sourceLine": None},
        {"type": "CAUSES", "source": "ghost", "target": "phantom", "confidence": 0.8,
         "provenance": "front_matter", "sourceParagraphId": None, "sourceLine": 9},
    ]  # fmt: skip
    declared = ["\x1f".join((r["source"], r["type"], r["target"], str(r["sourceLine"] or ""),
                             r["sourceParagraphId"] or "")) for r in rows]  # fmt: skip
    graph.write("ingest/create_relations", documentId=doc, scope=scope, rows=rows,
                declared=declared,
                sources=["current", "phantom", "ghost"],
                relationTypes=list(RELATION_TYPES))  # fmt: skip
    try:
        relations = _all(lambda a, n: dangling_relations(graph, scope, after=a, limit=n), 1)
        found = {(r.source_id, r.type, r.target_id): r for r in relations}
        assert set(found) == {("current", "DEPENDS_ON", "ghost"), ("phantom", "IS_A", "current"),
                              ("ghost", "CAUSES", "phantom")}  # fmt: skip
        assert found["current", "DEPENDS_ON", "ghost"].stub_end == "target"
        assert found["phantom", "IS_A", "current"].stub_end == "source"
        assert found["ghost", "CAUSES", "phantom"].stub_end == "both"
        assert found["current", "DEPENDS_ON", "ghost"].source_line == 7
        assert found["phantom", "IS_A", "current"].source_paragraph_id == "p_diagram"
        assert {r.source_document_id for r in relations} == {doc}
        assert {r.path for r in relations} == {f"{scope}/current.md"}
        assert [r.source_id for r in relations] == sorted(r.source_id for r in relations)
    finally:
        _write(graph, "MATCH (k:KnowledgePoint {scope: $scope, stub: true}) DETACH DELETE k",
               scope=scope)  # fmt: skip


def _paragraph_ids(graph: Graph, scope: str) -> dict[tuple[str, str], str]:
    """(file name, text) -> paragraph id, for the scope's paragraphs."""
    with graph.driver.session(database=graph.database) as session:
        rows = session.run(
            "MATCH (d:Document {scope: $scope})-[:HAS_HEADING|HAS_SUBHEADING|HAS_PARAGRAPH*]->"
            "(p:Paragraph) RETURN DISTINCT d.path AS path, p.text AS text, p.id AS id",
            scope=scope,
        ).data()
    return {(r["path"].removeprefix(f"{scope}/"), r["text"]): r["id"] for r in rows}


def test_near_duplicate_paragraphs_of_different_documents(graph: Graph, scope: str) -> None:
    pairs = near_duplicate_paragraphs(graph, scope, after=None, limit=50)
    assert pairs.next_after is None
    ids = _paragraph_ids(graph, scope)
    expected = [
        (("current.md", DUPLICATED), ("superseded.md", DUPLICATED)),
        (("current.md", DUPLICATED), ("expired.md", EDITED)),
        (("expired.md", EDITED), ("superseded.md", DUPLICATED)),
        (("current.md", REPEATED), ("expired.md", REPEATED)),
        (("current.md", REPEATED_EDITED), ("expired.md", REPEATED)),
    ]
    # Not REPEATED with REPEATED_EDITED inside current.md (one document), nor gone.md's copy
    # (withdrawn), nor the unrelated bibliography paragraph.
    assert {frozenset((p.first.paragraph_id, p.second.paragraph_id)) for p in pairs.items} == {
        frozenset((ids[a], ids[b])) for a, b in expected
    }
    assert len(pairs.items) == len(expected)
    where = {i: (path, text) for (path, text), i in ids.items()}
    for pair in pairs.items:
        assert pair.first.document_id != pair.second.document_id
        assert pair.first.paragraph_id < pair.second.paragraph_id
        assert NEAR_DUPLICATE_SIMILARITY <= pair.similarity <= 1.0
        texts = [where[side.paragraph_id][1] for side in (pair.first, pair.second)]
        assert (pair.similarity == 1.0) == (texts[0] == texts[1])
        for side in (pair.first, pair.second):
            path, text = where[side.paragraph_id]
            assert side.path == f"{scope}/{path}"
            assert side.start_line is not None and side.start_line > 1
            assert len(side.excerpt) <= EXCERPT_CHARS and side.excerpt.endswith("…")
            assert text.startswith(side.excerpt[:-1])


def test_near_duplicate_pages_and_the_exact_check(graph: Graph, scope: str) -> None:
    whole = near_duplicate_paragraphs(graph, scope, after=None, limit=50).items
    assert _all(lambda a, n: near_duplicate_paragraphs(graph, scope, after=a, limit=n), 1) == whole
    assert _all(lambda a, n: near_duplicate_paragraphs(graph, scope, after=a, limit=n), 2) == whole
    # A shared key alone is no near duplicate: the unrelated paragraph given one of the
    # duplicated paragraph's keys becomes a candidate, and the exact check drops it.
    shared = near_keys(DUPLICATED)[0]
    _write(graph, "MATCH (p:Paragraph {scope: $scope}) WHERE p.text STARTS WITH $start "
                  "SET p.nearKeys = [$key]",
           scope=scope, start=UNRELATED[:40], key=shared)  # fmt: skip
    try:
        assert near_duplicate_paragraphs(graph, scope, after=None, limit=50).items == whole
    finally:
        _write(graph, "MATCH (p:Paragraph {scope: $scope}) WHERE p.text STARTS WITH $start "
                      "SET p.nearKeys = $keys",
               scope=scope, start=UNRELATED[:40], keys=near_keys(UNRELATED))  # fmt: skip


def test_open_gaps_with_the_times_they_were_asked(graph: Graph, scope: str) -> None:
    now = int(time.time() * 1000)
    questions = ["How long does an open drum keep?", "Is water glass food safe?",
                 "Who sells water glass?"]  # fmt: skip
    tickets: list[str] = []
    for number, question in enumerate(questions):
        content = DraftContent(
            question=question, scope=scope, answer_id=f"t_{uuid.uuid4().hex[:16]}",
            answer_status="abstained", missing_terms=[], reasons=[], evidence=[], conflicts=[],
            note=None,
        )  # fmt: skip
        at = now + number * 1000
        draft = create_draft(graph, content, key_name="health", ttl_s=600, now_ms=at)
        outcome = confirm_draft(graph, draft.draft_id, "health", draft.draft, now_ms=at + 1)
        assert outcome is not None and outcome.ticket_id is not None
        tickets.append(outcome.ticket_id)
    record_recheck(graph, tickets[1], seq=10**12, answer_id="t_recheck", answer_status="answered",
                   citations=[])  # fmt: skip
    assert resolve_ticket(graph, tickets[2], key_name="editor", resolution="not our topic")
    asked = [
        (scope, questions[0], "support"),
        (scope, "  how LONG does an open drum keep? ", "support"),
        (scope, questions[0], "escalation-recheck"),  # the service asking again
        (f"{scope}-other", questions[0], "support"),  # another scope
        (scope, questions[1], "support"),
    ]
    _write(graph, "UNWIND $rows AS row CREATE (:AnswerRecord {id: row.id, scope: row.scope, "
                  "query: row.query, keyName: row.key, createdAtMs: timestamp()})",
           rows=[{"id": f"t_{uuid.uuid4().hex[:16]}", "scope": s, "query": q, "key": k}
                 for s, q, k in asked])  # fmt: skip
    try:
        gaps = _all(lambda a, n: open_gaps(graph, scope, after=a, limit=n), 1)
        assert [g.ticket_id for g in gaps] == tickets[:2]  # oldest first; resolved left out
        assert [g.status for g in gaps] == ["open", "answerable"]
        assert [g.question for g in gaps] == questions[:2]
        assert [g.times_asked for g in gaps] == [2, 1]
        assert gaps[0].created_at < gaps[1].created_at
        assert open_gaps(graph, f"{scope}-other", after=None, limit=5).items == []
    finally:
        delete_scope(graph, f"{scope}-other")


@pytest.mark.parametrize("limit", [0, -1, 501])
def test_page_sizes_out_of_range_are_refused(graph: Graph, scope: str, limit: int) -> None:
    for section in SECTIONS:
        with pytest.raises(InvalidHealthRequest):
            health_section(graph, scope, section, HealthSettings(max_page_size=500), limit=limit)


def test_today_must_be_an_iso_date(graph: Graph, scope: str) -> None:
    with pytest.raises(InvalidHealthRequest):
        expired_pages(graph, scope, today="01/06/2025", after=None, limit=5)
