"""REST API load benchmark: 32 concurrent clients for 60 s against `kgs serve` on loopback,
with a mix of questions, document reads and knowledge point reads over the shipped knowledge base.

    .venv/bin/python bench/load_bench.py [--clients 32] [--duration-s 60] [--think-s 1.0]
                                         [--port 8765] [--mix 0.4,0.3,0.3]

What it does, in order (every step bounded in time and count):
1. ingests knowledge_base/ (a no-op when the database already holds it unchanged);
2. starts `kgs serve --host 127.0.0.1 --port PORT` with a read-only API key generated for this
   run, and waits for /ready;
3. collects the workload: every document of the general scopes, questions about each title in
   PHRASINGS' wordings (shuffled, seeded), and each document's knowledge point;
4. unloaded baseline: UNLOADED_QUESTIONS questions one after another (after WARMUP_QUESTIONS);
5. load: CLIENTS clients, each in a loop: pick a request by the mix, send it, wait an exponential
   think time (mean --think-s, seeded), until the duration is over; at most MAX_REQUESTS;
6. stops the service with SIGTERM (graceful shutdown) and prints one table: throughput,
   p50/p95/p99 per route, errors, the service's peak RSS (VmHWM), and the targets.

The clients run in this process on the same 2 cores as the service (and Neo4j), so the figures
include their cost. Loopback only: the host is fixed to 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import secrets
import signal
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
KGS = ROOT / ".venv" / "bin" / "kgs"
HOST = "127.0.0.1"  # loopback only, by design
SCOPES = ("graphdb", "kitchen", "networking", "opticalbench", "waterglass")
WARMUP_QUESTIONS = 5
UNLOADED_QUESTIONS = 30
MAX_REQUESTS = 200_000
READY_TIMEOUT_S = 240.0
REQUEST_TIMEOUT_S = 60.0
# Idle pooled connections close on the client's side before uvicorn's 5 s keep-alive ends them:
# otherwise a request sent just as the server closes the connection fails (ReadError).
CLIENT_KEEPALIVE_S = 2.0
INGEST_TIMEOUT_S = 900.0
STOP_TIMEOUT_S = 30.0
SEED = 7
RSS_TARGET_MIB = 1536
P95_TARGET_RATIO = 4.0
BENCH_RATE_LIMIT = 1_000_000  # requests per window for the one bench key


# Ways to ask about one title. With --questions fresh (the default) every question is asked
# once, so the service's vector cache never holds the question beforehand: the figures are those
# of new questions about a known knowledge base (its paragraphs' sentences may be cached).
PHRASINGS = (
    "what is {}?",
    "define {}",
    "explain {}",
    "tell me about {}",
    "describe {}",
    "what does {} mean?",
    "give an overview of {}",
    "what should I know about {}?",
    "summarize {}",
    "what is meant by {}?",
    "can you explain {}?",
    "{}: what is it?",
    "what are the key facts about {}?",
    "briefly, what is {}?",
)


@dataclass
class Workload:
    questions: list[tuple[str, str]]  # (scope, question), in the order they are asked
    documents: list[str]
    points: list[tuple[str, str]]  # (scope, knowledge point id)
    fresh: bool = True  # each question once (then from the start again, counted as repeats)
    asked: int = 0
    repeats: int = 0

    def next_question(self, rng: random.Random) -> tuple[str, str]:
        if not self.fresh:
            return rng.choice(self.questions)
        question = self.questions[self.asked % len(self.questions)]
        self.repeats += self.asked >= len(self.questions)
        self.asked += 1
        return question


@dataclass
class Results:
    latencies_ms: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    error_samples: list[str] = field(default_factory=list)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--duration-s", type=float, default=60.0)
    parser.add_argument("--think-s", type=float, default=1.0, help="mean pause between requests")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--mix", default="0.4,0.3,0.3", help="query,document,knowledge point")
    parser.add_argument(
        "--questions", choices=("fresh", "repeat"), default="fresh",
        help="fresh: every question asked once; repeat: drawn with repeats from the same pool",
    )  # fmt: skip
    args = parser.parse_args()
    if not (1 <= args.clients <= 256 and 1 <= args.duration_s <= 600):
        raise SystemExit("--clients must be 1-256 and --duration-s 1-600")
    mix = [float(x) for x in args.mix.split(",")]
    if len(mix) != 3 or sum(mix) <= 0:
        raise SystemExit("--mix takes three weights: query,document,knowledge point")

    print("ingesting knowledge_base/ (unchanged documents are skipped)", flush=True)
    subprocess.run([str(KGS), "ingest", str(ROOT / "knowledge_base"), "--no-progress"],
                   check=True, timeout=INGEST_TIMEOUT_S, stdout=subprocess.DEVNULL)  # fmt: skip
    key = secrets.token_urlsafe(24)
    service = start_service(args.port, key)
    try:
        figures = asyncio.run(run(args, mix, key, service.pid))
    finally:
        peak_rss_mib = read_peak_rss_mib(service.pid)
        stop_service(service)
    report(args, figures, peak_rss_mib)


def start_service(
    port: int, key: str, *, name: str = "load-bench", scopes: tuple[str, ...] = ("*",),
    write: bool = False,
) -> subprocess.Popen[bytes]:  # fmt: skip
    """`kgs serve` with one API key (its name, scopes, write flag); log in bench/out/."""
    import hashlib

    keys = [{"name": name, "sha256": hashlib.sha256(key.encode()).hexdigest(),
             "scopes": list(scopes), "write": write}]  # fmt: skip
    # One key speaks for every simulated client: the rate limit stays on (its cost is measured)
    # but high enough never to refuse; the benchmarks measure capacity, not the quota.
    env = {**os.environ, "KGS_API_KEYS": json.dumps(keys), "KGS_API_DEV_MODE": "off",
           "KGS_API_RATE_LIMIT_REQUESTS": str(BENCH_RATE_LIMIT)}  # fmt: skip
    log = (ROOT / "bench" / "out").joinpath(f"{name}-service.log")
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("wb") as sink:
        service = subprocess.Popen(
            [str(KGS), "serve", "--host", HOST, "--port", str(port)],
            env=env, stdout=sink, stderr=subprocess.STDOUT,
        )  # fmt: skip
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline:
        if service.poll() is not None:
            raise SystemExit(f"the service exited with {service.returncode}; see {log}")
        try:
            if httpx.get(f"http://{HOST}:{port}/ready", timeout=5).status_code == 200:
                print(f"service ready on {HOST}:{port} (pid {service.pid}); log: {log}", flush=True)
                return service
        except httpx.TransportError:
            pass
        time.sleep(1)
    stop_service(service)
    raise SystemExit(f"the service was not ready within {READY_TIMEOUT_S:.0f} s; see {log}")


def stop_service(service: subprocess.Popen[bytes]) -> None:
    if service.poll() is None:
        service.send_signal(signal.SIGTERM)
        try:
            service.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            service.kill()
            service.wait()


def service_pids(pid: int) -> list[int]:
    """The service process and its descendants (answer workers, multiprocessing's tracker)."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        parents[int(stat.parent.name)] = int(fields[1])
    found = [pid]
    for candidate in found:
        found += [child for child, parent in parents.items() if parent == candidate]
    return found


def read_status_mib(pid: int, field: str) -> float:
    """One memory line of /proc/<pid>/status (VmRSS, VmHWM) summed over the service's
    processes; a sum of per-process peaks bounds the peak of the sum from above."""
    total = 0.0
    for member in service_pids(pid):
        try:
            status = Path(f"/proc/{member}/status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith(f"{field}:"):
                total += int(line.split()[1]) / 1024
    return total or float("nan")


def read_peak_rss_mib(pid: int) -> float:
    return read_status_mib(pid, "VmHWM")


async def run(args: argparse.Namespace, mix: list[float], key: str, pid: int) -> dict[str, object]:
    limits = httpx.Limits(max_connections=args.clients + 4, max_keepalive_connections=args.clients,
                          keepalive_expiry=CLIENT_KEEPALIVE_S)  # fmt: skip
    async with httpx.AsyncClient(
        base_url=f"http://{HOST}:{args.port}", headers={"X-API-Key": key},
        timeout=REQUEST_TIMEOUT_S, limits=limits,
    ) as client:  # fmt: skip
        workload = await collect(client, fresh=args.questions == "fresh")
        print(f"workload: {len(workload.questions)} questions, {len(workload.documents)} documents,"
              f" {len(workload.points)} knowledge points", flush=True)  # fmt: skip
        rng = random.Random(SEED)
        for _ in range(WARMUP_QUESTIONS):
            await ask(client, *workload.next_question(rng))
        unloaded: list[float] = []
        for _ in range(UNLOADED_QUESTIONS):
            scope, question = workload.next_question(rng)
            started = time.perf_counter()
            response = await ask(client, scope, question)
            response.raise_for_status()
            unloaded.append((time.perf_counter() - started) * 1000)
        print(f"unloaded /v1/query p50 {statistics.median(unloaded):.1f} ms", flush=True)

        results = Results()
        sent = [0]
        deadline = time.monotonic() + args.duration_s
        started = time.monotonic()
        await asyncio.gather(*(
            client_loop(client, workload, mix, args.think_s, deadline, results, sent,
                        random.Random(SEED + n))
            for n in range(args.clients)
        ))  # fmt: skip
        elapsed = time.monotonic() - started
    questions = (f"{args.questions} ({workload.asked} asked of {len(workload.questions)}, "
                 f"{workload.repeats} repeated)" if workload.fresh else "repeat")  # fmt: skip
    return {"unloaded": unloaded, "results": results, "elapsed": elapsed, "pid": pid,
            "questions": questions}  # fmt: skip


async def collect(client: httpx.AsyncClient, *, fresh: bool) -> Workload:
    questions: list[tuple[str, str]] = []
    documents: list[str] = []
    points: list[tuple[str, str]] = []
    for scope in SCOPES:
        page = (await client.get("/v1/documents", params={"scope": scope, "limit": 200})).json()
        for item in page["items"]:
            documents.append(item["id"])
            if item.get("title"):
                questions += [(scope, phrasing.format(item["title"])) for phrasing in PHRASINGS]
                found = await client.get(
                    "/v1/knowledge-points", params={"q": item["title"], "scope": scope, "limit": 1}
                )
                points += [(scope, m["id"]) for m in found.json()["items"]]
    if not (questions and documents and points):
        raise SystemExit("the shipped knowledge base is not in the database (run make run once)")
    random.Random(SEED).shuffle(questions)
    return Workload(questions, documents, sorted(set(points)), fresh=fresh)


async def ask(client: httpx.AsyncClient, scope: str, question: str) -> httpx.Response:
    return await client.post("/v1/query", params={"trace": "false"},
                             json={"query": question, "scope": scope})  # fmt: skip


async def client_loop(
    client: httpx.AsyncClient, workload: Workload, mix: list[float], think_s: float,
    deadline: float, results: Results, sent: list[int], rng: random.Random,
) -> None:  # fmt: skip
    await asyncio.sleep(rng.uniform(0, think_s))  # clients do not start in lock-step
    while time.monotonic() < deadline and sent[0] < MAX_REQUESTS:
        sent[0] += 1
        kind = rng.choices(("query", "document", "knowledgePoint"), weights=mix)[0]
        started = time.perf_counter()
        try:
            if kind == "query":
                response = await ask(client, *workload.next_question(rng))
            elif kind == "document":
                response = await client.get(f"/v1/documents/{rng.choice(workload.documents)}")
            else:
                scope, point = rng.choice(workload.points)
                response = await client.get(f"/v1/knowledge-points/{point}",
                                            params={"scope": scope})  # fmt: skip
            ok = response.status_code == 200
            detail = f"{kind} {response.status_code} {response.text[:200]}"
        except httpx.HTTPError as error:
            ok, detail = False, f"{kind} {type(error).__name__}: {error}"
        results.latencies_ms[kind].append((time.perf_counter() - started) * 1000)
        if not ok:
            results.errors[kind] += 1
            if len(results.error_samples) < 5:
                results.error_samples.append(detail)
        await asyncio.sleep(rng.expovariate(1 / think_s) if think_s > 0 else 0)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def report(args: argparse.Namespace, figures: dict[str, object], peak_rss_mib: float) -> None:
    unloaded: list[float] = figures["unloaded"]  # type: ignore[assignment]
    results: Results = figures["results"]  # type: ignore[assignment]
    elapsed: float = figures["elapsed"]  # type: ignore[assignment]
    unloaded_p50 = statistics.median(unloaded)
    total = sum(len(v) for v in results.latencies_ms.values())
    errors = sum(results.errors.values())
    header = ("route", "requests", "req/s", "p50 ms", "p95 ms", "p99 ms", "errors")
    rows: list[tuple[str, ...]] = [header]
    for kind, label in (("query", "POST /v1/query"), ("document", "GET /v1/documents/{id}"),
                        ("knowledgePoint", "GET /v1/knowledge-points/{id}")):  # fmt: skip
        values = results.latencies_ms.get(kind, [])
        rows.append((label, str(len(values)), f"{len(values) / elapsed:.1f}",
                     *(f"{percentile(values, q):.1f}" for q in (50, 95, 99)),
                     str(results.errors.get(kind, 0))))  # fmt: skip
    everything = [v for values in results.latencies_ms.values() for v in values]
    rows.append(("all", str(total), f"{total / elapsed:.1f}", f"{percentile(everything, 50):.1f}",
                 f"{percentile(everything, 95):.1f}", f"{percentile(everything, 99):.1f}",
                 str(errors)))  # fmt: skip
    query_p95 = percentile(results.latencies_ms.get("query", []), 95)
    ratio = query_p95 / unloaded_p50
    print(f"\n{args.clients} clients, {elapsed:.0f} s, mean think time {args.think_s} s, "
          f"mix query/document/knowledge point {args.mix}; unloaded /v1/query p50 "
          f"{unloaded_p50:.1f} ms ({UNLOADED_QUESTIONS} sequential questions); questions "
          f"{figures['questions']}")  # fmt: skip
    for sample in results.error_samples:
        print(f"  error: {sample}")
    print()
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print(f"| target: errors | {errors} | | | | | {'met' if errors == 0 else 'NOT met'} |")
    print(
        f"| target: /v1/query p95 under load / unloaded p50 <= {P95_TARGET_RATIO:.0f} "
        f"| {ratio:.2f} | | | | | {'met' if ratio <= P95_TARGET_RATIO else 'NOT met'} |"
    )
    print(
        f"| target: service peak RSS <= {RSS_TARGET_MIB} MiB | {peak_rss_mib:.0f} MiB "
        f"| | | | | {'met' if peak_rss_mib <= RSS_TARGET_MIB else 'NOT met'} |"
    )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
