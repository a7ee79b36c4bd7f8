"""Hostile input on the deterministic path: Cypher-injection payloads in every field a Markdown
file or a question can carry, and pathological Markdown. A sentinel scope's nodes and
relationships must be untouched; each value is stored literally or its file is rejected with a
clear problem; pathological files are rejected or ingested under explicit limits.

(The REST API's own hostile inputs, paths, query parameters and bodies, are covered in
tests/integration/test_api_flows.py.)"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from ingest.embeddings import SentenceTransformerEmbedder
from ingest.markdown import parse_markdown
from ingest.pipeline import IngestOptions, InvalidScope, ingest
from service.db import Graph
from service.graph_model import RELATION_TYPES
from service.question.runner import QuestionError, answer_question
from service.settings import Settings
from tests.faults.support import measured_ingest
from tests.integration.conftest import delete_scope

PAYLOADS = [
    "'",
    '"',
    "`",
    "$x",
    "{x}",
    "// comment",
    "}) DETACH DELETE n //",
    "') DETACH DELETE n //",
    '"}) MATCH (n) DETACH DELETE n //',
    "`) MATCH (n) DETACH DELETE n RETURN 1 //",
    "\\u0027) DETACH DELETE n //",
    "\u0027\u0060\u2028\u202e reversed",
    "CALL dbms.killQueries([]) //",
    "*:* OR title:[a TO z]~ ^3 \\",  # Lucene syntax for the full-text indexes
]
SENTINEL_DOC = """---
id: sentinel-stone
title: Sentinel stone
relations:
  - {type: CONTRASTS_WITH, target: marker-post}
---
# Sentinel stone

A sentinel stone marks the edge of a field and is never moved by hostile input.
"""
MAX_PATHOLOGICAL_RSS_KIB = 786_432  # peak resident set of the ingest subprocess (768 MiB)


def _snapshot(graph: Graph, scope: str) -> dict[str, Any]:
    return {
        "counts": graph.read("explore/scope_overview", scope=scope),
        "relations": graph.read("explore/scope_relations", scope=scope),
        "documents": graph.read(
            "api/documents_page",
            scopes=[scope],
            after="",
            limit=100,
            statuses=["active", "withdrawn"],
        ),
    }


@pytest.fixture
def sentinel(graph: Graph, settings: Settings, tmp_path: Path) -> Iterator[str]:
    name = f"sentinel-{uuid.uuid4().hex[:8]}"
    (tmp_path / "sentinel" / name).mkdir(parents=True)
    (tmp_path / "sentinel" / name / "stone.md").write_text(SENTINEL_DOC, encoding="utf-8")
    report = ingest(graph, None, tmp_path / "sentinel", IngestOptions(), settings.ingest)
    assert report.added == [f"{name}/stone.md"]
    yield name
    delete_scope(graph, name)


def _next(number: int) -> str:
    return PAYLOADS[(number + 1) % len(PAYLOADS)]


def _hostile_document(number: int, payload: str) -> str:
    front = {
        "id": f"hostile-{number}",
        "title": f"Title {payload}",
        "aliases": [payload, f"alias {payload}"],
        "summary": payload,
        payload: payload,  # an unknown key: dropped with a warning, never reaches Cypher
        "relations": [
            # the next document's alias: resolved to its knowledge point, or warned about
            {"type": "CONTRASTS_WITH", "target": _next(number), "confidence": 0.7},
            {"type": payload, "target": "sentinel-stone"},  # not an allowlisted type
        ],
    }
    body = f"# Heading {payload}\n\nBody text number {number} holds {payload} literally.\n"
    return "---\n" + yaml.safe_dump(front, allow_unicode=True, sort_keys=False) + "---\n" + body


def test_cypher_injection_payloads_are_stored_literally(
    graph: Graph, settings: Settings, embedder: SentenceTransformerEmbedder,
    scope: str, sentinel: str, tmp_path: Path,
) -> None:  # fmt: skip
    before = _snapshot(graph, sentinel)
    folder = tmp_path / "kb" / scope
    folder.mkdir(parents=True)
    for number, payload in enumerate(PAYLOADS):
        (folder / f"hostile-{number}.md").write_text(
            _hostile_document(number, payload), encoding="utf-8"
        )
    report = ingest(graph, embedder, tmp_path / "kb", IngestOptions(), settings.ingest)
    assert report.failed_files == [] and len(report.added) == len(PAYLOADS)
    warnings = [p.message for p in report.problems if p.severity == "warning"]
    relations = graph.read("explore/scope_relations", scope=scope)
    for number, payload in enumerate(PAYLOADS):
        path = f"{scope}/hostile-{number}.md"
        document = graph.read(
            "api/documents_page",
            scopes=[scope],
            after="",
            limit=100,
            statuses=["active", "withdrawn"],
        )
        assert f"Title {payload}" in {d["title"] for d in document if d["path"] == path}
        texts = [p["text"] for p in graph.read("explore/document_paragraphs", path=path)]
        assert any(f"holds {payload} literally" in text for text in texts)
        point = graph.read("api/knowledge_point", scope=scope, id=f"hostile-{number}")[0]
        assert point["summary"] == payload and payload in point["aliases"]
        own = [(r["type"], r["target"]) for r in relations if r["source"] == f"hostile-{number}"]
        # Names match without case and punctuation: '$x' and '{x}' are one name, and a name of
        # punctuation only matches nothing. The relation is made or dropped with a warning.
        dropped = (f"relation target {_next(number)!r} is unknown", "relation to itself ignored")
        linked = [("CONTRASTS_WITH", f"hostile-{(number + 1) % len(PAYLOADS)}")]
        assert own == linked or (own == [] and any(d in w for d in dropped for w in warnings))
        assert any(f"unknown relation type {payload!r}" in w for w in warnings)
    assert {r["type"] for r in relations} <= set(RELATION_TYPES)

    answered = 0
    for payload in PAYLOADS:  # the same payloads as questions, in both scopes
        for where in (scope, sentinel):
            try:
                response = answer_question(graph, embedder, f"what does {payload} mean?",
                                           scope=where, llm=False)  # fmt: skip
            except QuestionError:
                continue  # rejected with a clear message is allowed
            assert response["status"] in ("answered", "partial", "abstained", "conflict", "stale")
            answered += 1
    assert answered, "every hostile question was refused: the pipeline never ran on one"
    with pytest.raises(InvalidScope):
        ingest(graph, None, tmp_path / "kb", IngestOptions(scope="x') DETACH DELETE n //"),
               settings.ingest)  # fmt: skip
    assert _snapshot(graph, sentinel) == before


def _pathological(folder: Path, max_source_chars: int) -> dict[str, bytes]:
    nested = "".join("  " * depth + f"- level {depth}\n" for depth in range(400))
    quotes = "".join(">" * depth + f" quote {depth}\n" for depth in range(1, 400))
    table = "| " + " | ".join(f"c{c}" for c in range(12)) + " |\n"
    table += "|" + "---|" * 12 + "\n"
    table += "".join("| " + " | ".join(f"r{r}c{c}" for c in range(12)) + " |\n"
                     for r in range(6000))  # fmt: skip
    files = {
        "nested-lists.md": ("# Nested\n\n" + nested).encode(),
        "nested-quotes.md": ("# Quotes\n\n" + quotes).encode(),
        "huge-table.md": ("# Table\n\n" + table).encode(),
        "unclosed-fence.md": ("# Fence\n\n```python\n" + "x = 1\n" * 20_000).encode(),
        "long-line.md": ("# Line\n\n" + "word " * ((max_source_chars - 100) // 5)).encode(),
        "ten-megabytes.md": b"# Big\n\n" + b"a" * 10_000_000,
        "binary.md": bytes(range(256)) * 64,
        "invalid-utf8.md": b"# Bad\n\nvalid text then \xff\xfe\xc3 broken bytes\n",
    }
    for name, data in files.items():
        (folder / name).write_bytes(data)
    return files


def test_pathological_markdown_is_rejected_or_bounded(
    graph: Graph, settings: Settings, cli_env: dict[str, str], scope: str, tmp_path: Path,
) -> None:  # fmt: skip
    folder = tmp_path / scope
    folder.mkdir()
    limits = settings.ingest
    files = _pathological(folder, limits.max_source_chars)
    run, peak_kib = measured_ingest(tmp_path, cli_env)
    print(f"\npathological ingest: peak RSS {peak_kib / 1024:.0f} MiB\n{run.stdout}")
    assert run.returncode == 0, run.stderr[-2000:]
    assert peak_kib <= MAX_PATHOLOGICAL_RSS_KIB
    rejected = {
        "ten-megabytes.md": f"over the {limits.max_source_chars}-character limit",
        "binary.md": "binary content",
        "invalid-utf8.md": "not valid UTF-8",
    }
    for name, reason in rejected.items():
        line = next(x for x in run.stdout.splitlines() if f"{scope}/{name}" in x)
        assert reason in line
    for name in sorted(set(files) - set(rejected)):
        source = files[name].decode()
        rows = graph.read("explore/document_paragraphs", path=f"{scope}/{name}")
        assert rows, name
        assert [r["ordinal"] for r in rows] == list(range(len(rows)))
        for row in rows:  # bounded pieces, each exactly its source span
            assert len(row["text"]) <= limits.max_paragraph_chars
            assert source[row["startOffset"] : row["endOffset"]] == row["text"]


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x0b", "\x0c", "\x1c", "\x85"])
def test_unusual_line_separators_lose_no_text(separator: str) -> None:
    source = f"# Title{separator}more\n\nFirst{separator}paragraph.\n\nSecond paragraph.\n"
    document = parse_markdown(source)
    texts = [b.text for b in document.blocks]
    assert texts == [f"First{separator}paragraph.", "Second paragraph."]
    for block in document.blocks:
        assert source[block.start_offset : block.end_offset] == block.text
