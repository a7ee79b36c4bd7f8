"""Answer records benchmark: listing one page of GET /v1/answers with 100,000 stored records, and
the cost of storing a record on the unloaded answer path.

    .venv/bin/python bench/records_bench.py [--records 100000] [--pages 200] [--answers 60]

1. Seeds the scope `bench-records` with a small knowledge base (two documents) and answers one
   question through the API, then stores copies of that answer's record (new trace ids, times
   spread over the last 20 days, one status in five an abstention) until the database holds
   --records records of the scope, through the project's own `store_record`.
2. Times --pages listing requests through the API (Litestar's test client, in process): the
   first page, a scope-and-status filter, a part of the question, and the third page by cursor.
3. Times --answers unloaded questions through the API with records on and off, alternating.
   The record is written by the background writer after the response; the writer is flushed
   after each answer, untimed, so every answer starts on an idle writer as in an unloaded
   service. Prints both p50s and their ratio.

The scope and its records stay (a later run adds only what is missing); delete the scope to
start over.
"""

from __future__ import annotations

import argparse
import logging
import os
import random
import statistics
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any

import msgspec
from litestar.testing import TestClient

from ingest.embeddings import SentenceTransformerEmbedder
from service.api import create_app
from service.api.state import AppResources
from service.db import open_graph
from service.records import build_record, store_record
from service.settings import RecordSettings, Settings

SCOPE = "bench-records"
# Knowledge point ids of their own ("bench-..."): tests that share the database count the
# scopes holding a "granite" or "basalt".
SOURCES = {
    "bench-basalt.md": "---\nid: bench-basalt\n---\n# Basalt\n\nBasalt is a fine-grained "
    "volcanic rock formed from rapidly cooled lava.\n\n## Uses\n\nBasalt is crushed for road "
    "construction and railway ballast.\n",
    "bench-granite.md": "---\nid: bench-granite\n---\n# Granite\n\nGranite is a "
    "coarse-grained intrusive igneous rock rich in quartz and feldspar.\n",
}
QUESTIONS = ("what is basalt?", "what is granite?", "what is basalt used for?",
             "compare basalt and granite")  # fmt: skip
SPREAD_MS = 20 * 86_400_000
SEED_THREADS = 4


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))]


def timed(call: Callable[[], Any]) -> float:
    started = time.perf_counter()
    call()
    return (time.perf_counter() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--answers", type=int, default=60)
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ["KGS_API_DEV_MODE"] = "on"
    logging.disable(logging.INFO)  # the access log and httpx would drown the table
    settings = Settings.from_env()
    # One client sends every request: the per-client rate limit would measure 429s.
    settings = msgspec.structs.replace(
        settings, api=msgspec.structs.replace(settings.api, rate_limit_requests=0)
    )
    graph, _, close = open_graph(settings)
    embedder = SentenceTransformerEmbedder(settings.embedding.for_queries())
    try:
        on = AppResources(settings, graph=graph, embedder=embedder)
        off_settings = msgspec.structs.replace(settings, records=RecordSettings(enabled=False))
        off = AppResources(off_settings, graph=graph, embedder=embedder)
        with (
            TestClient(create_app(settings, on)) as client,
            TestClient(create_app(off_settings, off)) as plain,
        ):
            for name, text in SOURCES.items():
                file = (name, text.encode(), "text/markdown")
                sent = client.post("/v1/documents", data={"scope": SCOPE}, files={"file": file})
                assert sent.status_code in (200, 201), sent.text
            seed_records(client, on, graph, args.records)
            listing(client, args.pages)
            overhead(client, plain, on, args.answers)
    finally:
        close()


def seed_records(client: TestClient[Any], resources: AppResources, graph: Any, wanted: int) -> None:
    [row] = graph.read_text("MATCH (r:AnswerRecord {scope: $s}) RETURN count(r) AS n", {"s": SCOPE})
    have = int(row["n"])
    if have >= wanted:
        print(f"records of {SCOPE}: {have:,} (seeded before)")
        return
    response = client.post("/v1/query", json={"query": QUESTIONS[0], "scope": SCOPE}).json()
    rng = random.Random(7)
    now = int(time.time() * 1000)

    def one(_: int) -> None:
        trace = {**response["trace"], "traceId": f"t_{uuid.uuid4().hex[:16]}"}
        status = "abstained" if rng.random() < 0.2 else response["status"]
        question = f"{rng.choice(QUESTIONS)} #{rng.randrange(10_000)}"
        store_record(graph, build_record(
            {**response, "status": status, "trace": trace},
            request={"query": question, "scope": SCOPE}, scopes=(SCOPE,), key_name="bench",
            created_at_ms=now - rng.randrange(SPREAD_MS), max_response_bytes=1_000_000,
        ))  # fmt: skip

    started = time.perf_counter()
    with ThreadPoolExecutor(SEED_THREADS) as pool:
        list(pool.map(one, range(wanted - have)))
    elapsed = time.perf_counter() - started
    print(f"stored {wanted - have:,} records in {elapsed:.0f} s "
          f"({(wanted - have) / elapsed:.0f} records/s, {SEED_THREADS} threads)")  # fmt: skip


def listing(client: TestClient[Any], pages: int) -> None:
    since = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 86_400))
    third = client.get("/v1/answers", params={"scope": SCOPE, "limit": 50}).json()["nextCursor"]
    third = client.get("/v1/answers", params={"scope": SCOPE, "limit": 50,
                                              "cursor": third}).json()["nextCursor"]  # fmt: skip
    kinds = {
        "first page (50, scope)": {"scope": SCOPE, "limit": 50},
        "abstentions of the last day": {"scope": SCOPE, "status": "abstained", "since": since},
        "part of the question": {"scope": SCOPE, "q": "GRANITE #42"},
        "third page by cursor": {"scope": SCOPE, "limit": 50, "cursor": third},
    }
    print(f"\nGET /v1/answers, {pages} requests per kind, in process (ms):")
    print(f"{'kind':32} {'p50':>7} {'p95':>7} {'items':>6}")
    for kind, params in kinds.items():
        times, items = [], 0
        for _ in range(pages):
            started = time.perf_counter()
            response = client.get("/v1/answers", params=params)
            times.append((time.perf_counter() - started) * 1000)
            assert response.status_code == 200, response.text
            items = len(response.json()["items"])
        print(f"{kind:32} {statistics.median(times):7.1f} {percentile(times, 0.95):7.1f} "
              f"{items:6}")  # fmt: skip


def overhead(
    client: TestClient[Any], plain: TestClient[Any], on: AppResources, answers: int
) -> None:
    times: dict[str, list[float]] = {"records on": [], "records off": []}
    for i in range(answers + 4):
        question = {"query": QUESTIONS[i % len(QUESTIONS)], "scope": SCOPE}
        for label, target in (("records on", client), ("records off", plain)):
            elapsed = timed(partial(target.post, "/v1/query", json=question))
            if label == "records on":
                assert on.records is not None and on.records.flush(30.0)
            if i >= 4:  # warm-up
                times[label].append(elapsed)
    print(f"\nunloaded POST /v1/query, {answers} answers each, alternating (ms):")
    for label, values in times.items():
        print(
            f"{label:12} p50 {statistics.median(values):7.1f}  p95 {percentile(values, 0.95):7.1f}"
        )
    ratio = statistics.median(times["records on"]) / statistics.median(times["records off"])
    print(f"records on / off p50: {ratio:.3f} (target <= 1.10)")


if __name__ == "__main__":
    main()
