"""Operations routes benchmark (issue 42): the cost of GET /v1/ops/summary, /gaps and /failures
with 1,000,000 answer records in the database.

    .venv/bin/python bench/ops_bench.py [--records 1000000] [--scopes 5] [--days 30]
                                        [--failures 2000] [--calls 40] [--keep]

1. Seeds --records answers over the last --days days in --scopes scopes named bench-ops-N: a
   seeded mix of statuses (one in eight abstained, one in eight partial, one in fifty a
   conflict), stage timings drawn around a real answer's, two or three cited documents from a
   pool of 200, and questions from a pool of 3,000 wordings. Each answer is an AnswerRecord built
   by the project's own model and counted by the writer's own answer_counts; the record node is
   written without its response (cypher/bench/seed_answer_records.cypher) and the rollups are
   summed here and written at once (cypher/bench/seed_ops_rollups.cypher): through the writer's
   statement, one answer at a time, a million would take hours. --failures failure records go
   through the project's store_failure.
2. Checks that the writer's statement (cypher/ops/count_answers.cypher) and the summed rollups
   give the same summary and gaps on 3,000 answers, and that the summary over the whole window
   counts every seeded answer.
3. Times --calls requests of each kind through the API (Litestar's test client, in process,
   after three untimed ones): the summary of every scope over 7 days by hour and over 30 days
   by day, one scope's summary over 30 days by hour, gaps over 30 days, failures over 7 days.
   Prints p50 and p95 per kind against the issue's 200 ms.
4. Deletes what it seeded unless --keep. Stop services on this database first: their record
   writer's retention (KGS_RECORDS_MAX_COUNT, 100,000 by default) would trim the seeded records.
"""

from __future__ import annotations

import argparse
import logging
import os
import random
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import msgspec
from litestar.testing import TestClient

from service.api import create_app
from service.api.state import AppResources
from service.db import open_graph
from service.db.graph import Graph
from service.records import FailureRecord, store_failure
from service.records.model import AnswerRecord, Span, iso_time
from service.records.rollup import LATENCY_BOUNDS_MS, answer_counts
from service.settings import Settings

PREFIX = "bench-ops-"
SEED = 42
BATCH = 10_000  # answers per seeding transaction
ROLLUP_BATCH = 5_000  # rollups of each kind per seeding transaction
CHECK_ANSWERS = 3_000  # answers seeded both ways to show the seeding equals the writer's
MAX_WORDINGS = 5
DOCUMENTS = 200
WORDINGS = 3_000
TARGET_MS = 200.0
STATUSES = (("answered", 0.73), ("abstained", 0.125), ("partial", 0.125), ("conflict", 0.02))
STAGES = {"plan": 2.0, "retrieval": 60.0, "graphContext": 12.0, "augmentation": 15.0,
          "contextPack": 0.3, "support": 40.0, "sufficiency": 1.0, "answer": 25.0}  # fmt: skip
SUBJECTS = ("warranty", "filter", "descaling", "battery", "firmware", "router", "lens", "stock",
            "kettle", "charger", "display", "backup", "update", "cable", "pump")  # fmt: skip
FRAMES = ("How long is the {} {}?", "What does the {} {} cost?", "How do I reset the {} {}?",
          "Where is the {} {} sold?", "Who repairs the {} {}?")  # fmt: skip
DAY_MS = 86_400_000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--scopes", type=int, default=5)
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--failures", type=int, default=2_000)
    parser.add_argument("--calls", type=int, default=40)
    parser.add_argument("--keep", action="store_true", help="leave the seeded records")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ["KGS_API_DEV_MODE"] = "on"
    logging.disable(logging.INFO)
    settings = Settings.from_env()
    settings = msgspec.structs.replace(settings, api=msgspec.structs.replace(
        settings.api, rate_limit_requests=0, answer_processes=0,
    ))  # fmt: skip
    graph, _, close = open_graph(settings)
    now_ms = int(time.time() * 1000)
    try:
        delete_seeded(graph)
        started = time.perf_counter()
        seed(graph, args, now_ms)
        print(f"seeded {args.records:,} answers and {args.failures:,} failures in "
              f"{time.perf_counter() - started:.0f} s")  # fmt: skip
        resources = AppResources(settings, graph=graph, embedder=None)
        with TestClient(create_app(settings, resources)) as client:
            check_rollups(graph, client, args, now_ms)
            check_counts(client, args, now_ms)
            timings(client, args, now_ms)
    finally:
        if not args.keep:
            delete_seeded(graph)
        close()


def answers(args: argparse.Namespace, now_ms: int, scopes: list[str], count: int,
            seed: int = SEED) -> Iterator[list[AnswerRecord]]:  # fmt: skip
    """`count` synthetic answers over the last --days days, in batches."""
    rng = random.Random(seed)
    wordings = [frame.format(rng.choice(SUBJECTS), rng.choice(SUBJECTS)) + f" ({n})"
                for n, frame in enumerate(rng.choices(FRAMES, k=WORDINGS))]  # fmt: skip
    statuses, weights = zip(*STATUSES, strict=True)
    start_ms = now_ms - args.days * DAY_MS
    for first in range(0, count, BATCH):
        batch = []
        for n in range(first, min(first + BATCH, count)):
            at = rng.randrange(start_ms, now_ms)
            scope = scopes[n % len(scopes)]
            batch.append(AnswerRecord(
                id=f"t_bench{seed}{n:011d}", replay_id="", scope=scope, scopes=(scope,),
                query=rng.choice(wordings), request={}, status=rng.choices(statuses, weights)[0],
                created_at=iso_time(at), created_at_ms=at, key_name="bench", client="rest",
                timings_ms={s: round(rng.lognormvariate(0, 0.6) * ms, 2)
                            for s, ms in STAGES.items()},
                evidence_status={}, response=b"",
                cited=tuple(Span(f"d_bench{rng.randrange(DOCUMENTS):04d}", 0, 10)
                            for _ in range(rng.choice((2, 3)))),
                used=(),
            ))  # fmt: skip
        yield batch


class Rollups:
    """What count_answers.cypher would leave after the answers added here, summed in Python
    so that a million answers are written in minutes (bench only)."""

    def __init__(self) -> None:
        self.hours: Counter[tuple[Any, ...]] = Counter()
        self.latencies: dict[tuple[Any, ...], dict[str, Any]] = {}
        self.cited: Counter[tuple[Any, ...]] = Counter()
        self.gaps: dict[tuple[Any, ...], dict[str, Any]] = {}

    def add(self, row: dict[str, Any]) -> None:
        scope, hour, day = row["scope"], row["hourMs"], row["dayMs"]
        self.hours[(scope, hour, row["status"])] += 1
        for stage in row["stages"]:
            held = self.latencies.setdefault((scope, day, stage["stage"]), {
                "scope": scope, "dayMs": day, "stage": stage["stage"],
                "counts": [0] * (len(LATENCY_BOUNDS_MS) + 1), "sumMs": 0.0})  # fmt: skip
            held["counts"][stage["bin"]] += 1
            held["sumMs"] += stage["ms"]
        for document in row["documents"]:
            self.cited[(scope, day, document)] += 1
        if (gap := row["gap"]) is not None:
            held = self.gaps.setdefault((scope, day, gap["key"], row["status"]), {
                "scope": scope, "dayMs": day, "key": gap["key"], "status": row["status"],
                "asked": 0, "words": gap["words"], "wordings": [], "lastAskedMs": 0})  # fmt: skip
            held["asked"] += 1
            if gap["query"] not in held["wordings"] and len(held["wordings"]) < MAX_WORDINGS:
                held["wordings"].append(gap["query"])
            if row["atMs"] >= held["lastAskedMs"]:
                held.update(lastAskedMs=row["atMs"], traceId=row["traceId"], query=gap["query"])

    def write(self, graph: Graph) -> None:
        lists = {
            "hours": [{"scope": s, "hourMs": h, "status": st, "answers": n}
                      for (s, h, st), n in self.hours.items()],
            "latencies": list(self.latencies.values()),
            "cited": [{"scope": s, "dayMs": d, "documentId": doc, "citations": n}
                      for (s, d, doc), n in self.cited.items()],
            "gaps": list(self.gaps.values()),
        }  # fmt: skip
        longest = max(len(rows) for rows in lists.values())
        for first in range(0, longest, ROLLUP_BATCH):
            graph.write(
                "bench/seed_ops_rollups",
                **{k: rows[first : first + ROLLUP_BATCH] for k, rows in lists.items()},
            )


def seed(graph: Graph, args: argparse.Namespace, now_ms: int) -> None:
    rollups = Rollups()
    scopes = [f"{PREFIX}{n}" for n in range(args.scopes)]
    for batch in answers(args, now_ms, scopes, args.records):
        graph.write("bench/seed_answer_records", records=[_node(r) for r in batch])
        for record in batch:
            rollups.add(answer_counts(record))
    rollups.write(graph)
    rng = random.Random(SEED)
    start_ms = now_ms - args.days * DAY_MS
    kinds = (("pipeline.retrieval", "neo4j-timeout", 504), ("answer-pool", "worker-stopped", 503),
             ("question.runner", "neo4j-unavailable", 503))  # fmt: skip
    for n in range(args.failures):
        stage, error_type, status = rng.choice(kinds)
        store_failure(graph, FailureRecord(
            trace_id=f"t_benchfail{n:07d}", scope=scopes[n % args.scopes], stage=stage,
            error_type=error_type, status=status,
            created_at_ms=rng.randrange(start_ms, now_ms), key_name="bench", client="rest",
        ))  # fmt: skip


def check_rollups(graph: Graph, client: TestClient[Any], args: argparse.Namespace,
                  now_ms: int) -> None:  # fmt: skip
    """The same CHECK_ANSWERS answers counted by the writer's statement into one scope and
    summed here into another give the same summary and gaps."""
    written, summed = f"{PREFIX}check-written", f"{PREFIX}check-summed"
    rollups = Rollups()
    for kept, scope in ((None, written), (rollups, summed)):
        for batch in answers(args, now_ms, [scope], CHECK_ANSWERS, seed=SEED + 1):
            rows = [answer_counts(r) for r in batch]
            if kept is None:
                for first in range(0, len(rows), 200):
                    graph.write(
                        "ops/count_answers",
                        answers=rows[first : first + 200],
                        bins=len(LATENCY_BOUNDS_MS) + 1,
                        maxWordings=MAX_WORDINGS,
                    )
            else:
                for row in rows:
                    kept.add(row)
    rollups.write(graph)
    since = iso_time(now_ms - (args.days + 1) * DAY_MS)
    views = []
    for scope in (written, summed):
        summary = client.get("/v1/ops/summary", params={"scope": scope, "since": since,
                                                        "limit": 20}).json()  # fmt: skip
        gaps = client.get("/v1/ops/gaps", params={"scope": scope, "since": since,
                                                  "limit": 20}).json()  # fmt: skip
        views.append(
            (
                summary["totals"],
                summary["buckets"],
                summary["latencyMs"],
                [(d["documentId"], d["citations"]) for d in summary["topCitedDocuments"]],
                [{k: v for k, v in g.items() if k != "scope"} for g in gaps["gaps"]],
            )
        )
    print(f"writer's statement and summed rollups agree on {CHECK_ANSWERS:,} answers: "
          f"{views[0] == views[1]}")  # fmt: skip
    assert views[0] == views[1]


def _node(record: AnswerRecord) -> dict[str, Any]:
    return {"id": record.id, "scope": record.scope, "status": record.status,
            "createdAtMs": record.created_at_ms, "createdAt": record.created_at,
            "query": record.query, "keyName": record.key_name,
            "client": record.client}  # fmt: skip


def check_counts(client: TestClient[Any], args: argparse.Namespace, now_ms: int) -> None:
    since = iso_time(now_ms - (args.days + 1) * DAY_MS)
    counted = 0
    for n in range(args.scopes):
        body = client.get("/v1/ops/summary", params={"scope": f"{PREFIX}{n}", "since": since,
                                                     "bucket": "day"}).json()  # fmt: skip
        counted += body["totals"]["answers"]
    print(f"summary counts {counted:,} of {args.records:,} seeded answers")
    assert counted == args.records, counted


def timings(client: TestClient[Any], args: argparse.Namespace, now_ms: int) -> None:
    week, month = iso_time(now_ms - 7 * DAY_MS), iso_time(now_ms - args.days * DAY_MS)
    kinds: dict[str, tuple[str, dict[str, str]]] = {
        "summary, all scopes, 7 days by hour": ("summary", {"since": week}),
        "summary, all scopes, 30 days by day": ("summary", {"since": month, "bucket": "day"}),
        "summary, one scope, 30 days by hour": ("summary", {"since": month,
                                                            "scope": f"{PREFIX}0"}),
        "gaps, all scopes, 30 days": ("gaps", {"since": month}),
        "failures, all scopes, 7 days by hour": ("failures", {"since": week}),
    }  # fmt: skip
    print(f"\n| request ({args.records:,} records) | p50 ms | p95 ms | target p95 |")
    print("|---|---|---|---|")
    for label, (route, params) in kinds.items():

        def call(route: str = route, params: dict[str, str] = params) -> None:
            response = client.get(f"/v1/ops/{route}", params=params)
            assert response.status_code == 200, response.text

        for _ in range(3):
            call()
        times = sorted(timed(call) for _ in range(args.calls))
        p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
        print(f"| {label} | {statistics.median(times):.0f} | {p95:.0f} | "
              f"≤ {TARGET_MS:.0f}: {'met' if p95 <= TARGET_MS else 'NOT met'} |")  # fmt: skip


def timed(call: Callable[[], Any]) -> float:
    started = time.perf_counter()
    call()
    return (time.perf_counter() - started) * 1000


def delete_seeded(graph: Graph) -> None:
    while graph.write("bench/delete_bench_ops", prefix=PREFIX, batch=20_000).rows[0]["deleted"]:
        pass


if __name__ == "__main__":
    main()
