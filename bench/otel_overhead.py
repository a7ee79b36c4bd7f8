"""OpenTelemetry's cost on the answer path (issue 42): unloaded questions through POST /v1/query
with no OTLP endpoint set (kgs makes no provider, no span, no export) against the same app with
spans on, exported in batches to an in-memory exporter (the SDK's work without the network).

    .venv/bin/python bench/otel_overhead.py [--questions 60] [--scope waterglass]

Both apps run in this process (Litestar's test client) on one Neo4j, one model and one set of
questions (load_bench.PHRASINGS over the scope's titles), each asked of both, the first app to
ask taking turns (the second finds the question's vector cached), after three untimed ones.
Prints p50 and p95 of each, their ratio, and the spans each exported: none without an endpoint.
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import time
from typing import Any

import msgspec
from litestar.testing import TestClient
from load_bench import PHRASINGS
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from ingest.embeddings import SentenceTransformerEmbedder
from service.api import create_app
from service.api.state import AppResources
from service.api.telemetry import otlp_tracer_provider
from service.db import open_graph
from service.settings import Settings

WARMUP = 3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--questions", type=int, default=60)
    parser.add_argument("--scope", default="waterglass")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ["KGS_API_DEV_MODE"] = "on"
    os.environ.pop("OTEL_EXPORTER_OTLP_ENDPOINT", None)
    logging.disable(logging.INFO)
    settings = Settings.from_env()
    settings = msgspec.structs.replace(settings, api=msgspec.structs.replace(
        settings.api, rate_limit_requests=0,
    ))  # fmt: skip
    assert otlp_tracer_provider(settings.telemetry) is None  # no endpoint: no provider at all
    graph, _, close = open_graph(settings)
    embedder = SentenceTransformerEmbedder(settings.embedding.for_queries())
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(BatchSpanProcessor(exporter))
    try:
        off = AppResources(settings, graph=graph, embedder=embedder)
        on = AppResources(settings, graph=graph, embedder=embedder)
        with (
            TestClient(create_app(settings, off)) as plain,
            TestClient(create_app(settings, on, tracer_provider=provider)) as traced,
        ):
            listed = plain.get("/v1/documents", params={"scope": args.scope, "limit": 50})
            titles = [item["title"] for item in listed.json()["items"]]
            assert titles, f"scope {args.scope} holds no documents (make run once)"
            questions = [p.format(t) for t in titles for p in PHRASINGS][: args.questions]
            times: dict[str, list[float]] = {"no endpoint": [], "spans on": []}
            apps = [("no endpoint", plain), ("spans on", traced)]
            for index, question in enumerate(questions):
                # The second to ask finds the question's vector cached: take turns being first.
                for name, client in apps if index % 2 == 0 else apps[::-1]:
                    elapsed = ask(client, question, args.scope)
                    if index >= WARMUP:
                        times[name].append(elapsed)
            provider.force_flush()
            exported = len(exporter.get_finished_spans())
    finally:
        provider.shutdown()
        close()
    print(f"\n| answer path ({len(times['spans on'])} questions each) | p50 ms | p95 ms | "
          "spans exported |\n|---|---|---|---|")  # fmt: skip
    for name, spans in (("no endpoint", 0), ("spans on", exported)):
        values = sorted(times[name])
        p95 = values[min(len(values) - 1, round(0.95 * (len(values) - 1)))]
        print(f"| {name} | {statistics.median(values):.1f} | {p95:.1f} | {spans} |")
    ratio = statistics.median(times["spans on"]) / statistics.median(times["no endpoint"])
    print(f"\nspans on / no endpoint at the p50: {ratio:.3f}")


def ask(client: TestClient[Any], question: str, scope: str) -> float:
    started = time.perf_counter()
    response = client.post("/v1/query", json={"query": question, "scope": scope})
    elapsed = (time.perf_counter() - started) * 1000
    assert response.status_code == 200, response.text
    return elapsed


if __name__ == "__main__":
    main()
