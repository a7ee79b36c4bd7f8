"""OpenTelemetry: one answer's span tree, taken by the SDK's in-memory exporter from the real
app (Litestar's instrumentation over the real Neo4j and model): the request span, the answer
span under it, one span per stage under that; attributes without the question's text unless
KGS_OTEL_INCLUDE_TEXT is on; no span for health checks."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from litestar.testing import TestClient
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from ingest.embeddings import SentenceTransformerEmbedder
from ingest.pipeline import IngestOptions, ingest
from service.api import create_app
from service.api.state import AppResources
from service.db import Graph
from service.settings import ApiSettings, Settings, TelemetrySettings, project_root
from tests.integration.conftest import delete_scope

SCOPE = f"otel-{uuid.uuid4().hex[:8]}"
QUESTION = "what is water glass made from?"


@pytest.fixture(scope="module")
def scope(
    graph: Graph, settings: Settings, embedder: SentenceTransformerEmbedder, tmp_path_factory: Any
) -> Iterator[str]:
    root: Path = tmp_path_factory.mktemp("otel-kb")
    shutil.copytree(project_root() / "knowledge_base" / "waterglass", root / SCOPE)
    assert ingest(graph, embedder, root, IngestOptions(), settings.ingest).added
    yield SCOPE
    delete_scope(graph, SCOPE)


def _spans(settings: Settings, graph: Graph, embedder: SentenceTransformerEmbedder,
           include_text: bool) -> list[ReadableSpan]:  # fmt: skip
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    served = msgspec.structs.replace(
        settings, api=ApiSettings(dev_mode=True, answer_processes=0),
        telemetry=TelemetrySettings(include_text=include_text),
    )  # fmt: skip
    resources = AppResources(served, graph=graph, embedder=embedder)
    with TestClient(create_app(served, resources, tracer_provider=provider)) as client:
        assert client.get("/health").status_code == 200
        answered = client.post("/v1/query", json={"query": QUESTION, "scope": SCOPE})
        assert answered.status_code == 200, answered.text
    provider.shutdown()
    return list(exporter.get_finished_spans())


def test_one_answer_is_one_span_tree_without_the_question(
    settings: Settings, graph: Graph, embedder: SentenceTransformerEmbedder, scope: str
) -> None:
    spans = _spans(settings, graph, embedder, include_text=False)
    assert not any("/health" in s.name for s in spans)  # health checks are not traced
    [answer] = [s for s in spans if s.name == "kgs.answer"]
    request = next(s for s in spans if s.context.span_id == answer.parent.span_id)
    assert request.kind.name == "SERVER" and "/v1/query" in request.name
    attributes = dict(answer.attributes or {})
    assert attributes["kgs.scope"] == scope and attributes["kgs.client"] == "rest"
    assert attributes["kgs.status"] in {"answered", "partial"} and attributes["kgs.citations"] > 0
    assert "kgs.question" not in attributes
    stages = [
        s for s in spans if s.parent is not None and s.parent.span_id == answer.context.span_id
    ]
    names = {s.name for s in stages}
    assert {"kgs.stage.retrieval", "kgs.stage.augmentation"} <= names, names
    retrieval = next(s for s in stages if s.name == "kgs.stage.retrieval")
    statements = list(retrieval.attributes["kgs.cypher.statements"])
    assert statements and all(n.startswith("retrieval/") for n in statements)
    assert all(answer.start_time <= s.start_time <= s.end_time <= answer.end_time for s in stages)
    assert all(s.context.trace_id == request.context.trace_id for s in stages)
    for span in spans:  # the question's words appear nowhere in what is exported
        assert not any(QUESTION in str(v) for v in (span.attributes or {}).values()), span.name


def test_the_question_goes_out_only_when_asked(
    settings: Settings, graph: Graph, embedder: SentenceTransformerEmbedder, scope: str
) -> None:
    spans = _spans(settings, graph, embedder, include_text=True)
    [answer] = [s for s in spans if s.name == "kgs.answer"]
    assert answer.attributes["kgs.question"] == QUESTION
