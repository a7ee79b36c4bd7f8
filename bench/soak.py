"""Soak run (issue 39): a running service under a steady load for a long time (default 30 min),
its resident memory sampled every 30 s, to show whether memory levels off.

    .venv/bin/python bench/soak.py [--url http://127.0.0.1:8000] [--api-key KEY] [--pid PID]
                                   [--duration-s 1800] [--clients 16] [--think-s 1.0]

The service is one you started (`make run`, or `kgs serve`); a key (--api-key or KGS_API_KEY)
must read the shipped scopes and write --scope, and its rate limit must allow about
CLIENTS / THINK_S requests per second (KGS_API_RATE_LIMIT_REQUESTS); a 429 counts as an error.
Without a key the service must be in development mode. The process is --pid, or the one
listening on the URL's port (found through /proc/net/tcp).

What it does, every step bounded in time and count:
1. reads the titles of the shipped scopes (load_bench.SCOPES) through the API; deletes what an
   earlier run left in --scope;
2. CLIENTS clients, each in a loop until the duration is over: a request picked by the seeded mix
   (new question, repeated question, document read, upload, delete), then an exponential think
   time (mean --think-s). A new question is asked once in the run (a title in one of
   load_bench.PHRASINGS, then two titles in one of PAIR_PHRASINGS, then the same with a round
   number); a repeated question is drawn from REPEAT_POOL fixed ones. An upload is a new document
   in --scope built from the shipped knowledge base's sentences; a delete removes one the client
   uploaded; a tenth of the questions ask --scope about an uploaded document;
3. every --sample-s: VmRSS of the service process and of it with its children (the answer
   workers), and the text caches' bytes from /metrics;
4. prints one table of the samples and one of the figures: the RSS slope (MiB/min, least
   squares) of each --window-s window and of the last --tail-s, the peak (sampled, and VmHWM),
   requests and errors by kind; writes soak.json and soak.svg (RSS over time) to --out;
5. deletes the documents it uploaded that are still there.

The clients run on the same host as the service, as in load_bench.py.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import random
import re
import secrets
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import httpx
from faults.knowledge_base import sentences
from load_bench import (
    CLIENT_KEEPALIVE_S,
    PHRASINGS,
    REQUEST_TIMEOUT_S,
    ROOT,
    SCOPES,
    percentile,
    read_status_mib,
)

SEED = 39
DEFAULT_DURATION_S = 1800.0
DEFAULT_SAMPLE_S = 30.0
DEFAULT_WINDOW_S = 600.0  # slope per window
DEFAULT_TAIL_S = 1200.0  # and over the last this many seconds
SLOPE_TARGET_MIB_PER_MIN = 5.0  # issue 39: over the last 20 minutes
MAX_DURATION_S = 6 * 3600.0
MAX_CLIENTS = 128
MAX_REQUESTS = 1_000_000
REPEAT_POOL = 50  # questions asked again and again
UPLOAD_PARAGRAPHS = 3
SENTENCES_PER_PARAGRAPH = 4
UPLOAD_QUESTION_SHARE = 0.1  # questions about an uploaded document, in --scope
PAGE_SIZE = 200  # documents per listing page (the API's largest)
ERROR_SAMPLES = 8
KINDS = ("new", "repeat", "document", "upload", "delete")
DEFAULT_MIX = "0.35,0.35,0.10,0.12,0.08"
SUCCESS = {"new": 200, "repeat": 200, "document": 200, "upload": 201, "delete": 204}
PAIR_PHRASINGS = (
    "how does {} relate to {}?",
    "compare {} and {}",
    "what do {} and {} have in common?",
    "what is the difference between {} and {}?",
)
# The SVG plot
PLOT_WIDTH, PLOT_HEIGHT, PLOT_MARGIN = 760, 360, 56
MIB = 1024 * 1024


@dataclass
class Sample:
    t_s: float
    rss_mib: float  # the service process
    tree_rss_mib: float  # with its children (answer workers)
    # by kind, the service process's and (keys "workers text", ...) its workers' summed
    text_cache_bytes: dict[str, float]


@dataclass
class Results:
    latencies_ms: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    statuses: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    error_samples: list[str] = field(default_factory=list)
    sent: int = 0


@dataclass
class Questions:
    """New questions, each asked once, and a fixed pool asked again and again."""

    titles: list[tuple[str, str]]  # (scope, title)
    repeated: list[tuple[str, str]]
    _new: Iterator[tuple[str, str]] = field(init=False)
    uploaded: list[str] = field(default_factory=list)  # titles of live uploads
    new_asked: int = 0

    def __post_init__(self) -> None:
        self._new = self._generate()

    def _generate(self) -> Iterator[tuple[str, str]]:
        rng = random.Random(SEED)
        singles = [(s, p.format(t)) for s, t in self.titles for p in PHRASINGS]
        pairs = [(s, p.format(t, u)) for (s, t), (_, u) in itertools.permutations(self.titles, 2)
                 for p in PAIR_PHRASINGS]  # fmt: skip
        asked = set(self.repeated)
        rng.shuffle(singles)
        rng.shuffle(pairs)
        for round_number in itertools.count(1):
            for scope, text in singles + pairs:
                if round_number > 1:
                    text = f"{text} (round {round_number})"
                if (scope, text) not in asked:
                    yield scope, text

    def new(self) -> tuple[str, str]:
        self.new_asked += 1
        return next(self._new)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--api-key", default=os.environ.get("KGS_API_KEY"))
    parser.add_argument("--pid", type=int, help="the service process (default: from the port)")
    parser.add_argument("--duration-s", type=float, default=DEFAULT_DURATION_S)
    parser.add_argument("--sample-s", type=float, default=DEFAULT_SAMPLE_S)
    parser.add_argument("--window-s", type=float, default=DEFAULT_WINDOW_S)
    parser.add_argument("--tail-s", type=float, default=DEFAULT_TAIL_S)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--think-s", type=float, default=1.0, help="mean pause between requests")
    parser.add_argument("--mix", default=DEFAULT_MIX, help=",".join(KINDS) + " weights")
    parser.add_argument("--scope", default="soak", help="the scope uploads go to")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "soak")
    args = parser.parse_args()
    if not (1 <= args.clients <= MAX_CLIENTS and 1 <= args.duration_s <= MAX_DURATION_S):
        raise SystemExit(f"--clients must be 1-{MAX_CLIENTS}, --duration-s 1-{MAX_DURATION_S:.0f}")
    if not 1 <= args.sample_s <= args.duration_s:
        raise SystemExit("--sample-s must be 1 s to the duration")
    mix = [float(x) for x in args.mix.split(",")]
    if len(mix) != len(KINDS) or sum(mix) <= 0 or min(mix) < 0:
        raise SystemExit(f"--mix takes {len(KINDS)} weights: {','.join(KINDS)}")
    pid = args.pid or listening_pid(urlparse(args.url).port or 80)
    if pid is None or not Path(f"/proc/{pid}/status").exists():
        raise SystemExit(f"no process listening on {args.url} (give --pid)")
    figures = asyncio.run(run(args, mix, pid))
    report(args, pid, figures)


def listening_pid(port: int) -> int | None:
    """The process holding the listening TCP socket on `port` (IPv4 or IPv6)."""
    inodes: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                inodes.add(fields[9])
    for fd_dir in Path("/proc").glob("[0-9]*/fd"):
        try:
            for fd in fd_dir.iterdir():
                target = os.readlink(fd)
                if target.startswith("socket:[") and target[8:-1] in inodes:
                    return int(fd_dir.parent.name)
        except OSError:
            continue
    return None


async def run(args: argparse.Namespace, mix: list[float], pid: int) -> dict[str, Any]:
    headers = {"X-API-Key": args.api_key} if args.api_key else {}
    limits = httpx.Limits(max_connections=args.clients + 4, max_keepalive_connections=args.clients,
                          keepalive_expiry=CLIENT_KEEPALIVE_S)  # fmt: skip
    async with httpx.AsyncClient(base_url=args.url, headers=headers, timeout=REQUEST_TIMEOUT_S,
                                 limits=limits) as http:  # fmt: skip
        titles = await shipped_titles(http)
        left = await clean_up(http, args.scope, await listed_ids(http, args.scope))
        rng = random.Random(SEED)
        single = [(s, p.format(t)) for s, t in titles for p in PHRASINGS]
        questions = Questions(titles, rng.sample(single, min(REPEAT_POOL, len(single))))
        print(f"{len(titles)} titles in {len(SCOPES)} scopes; {left} documents of an earlier run "
              f"deleted from {args.scope}; {args.clients} clients for {args.duration_s:.0f} s, "
              f"service pid {pid}", flush=True)  # fmt: skip
        pool = sentences()
        run_id = secrets.token_hex(3)
        results, samples = Results(), list[Sample]()
        origin = time.monotonic()
        deadline = origin + args.duration_s
        mine: list[tuple[str, str]] = []  # (document id, title) of live uploads
        await asyncio.gather(
            sampler(http, pid, origin, deadline, args.sample_s, samples),
            *(client_loop(http, n, random.Random(SEED * 1000 + n), questions, mine, pool, run_id,
                          args, mix, deadline, results)
              for n in range(args.clients)),
        )  # fmt: skip
        elapsed = time.monotonic() - origin
        samples.append(await take_sample(http, pid, origin))
        peak_hwm_mib = read_status_mib(pid, "VmHWM")
        process_hwm_mib = status_mib(pid, "VmHWM")
        cleaned = await clean_up(http, args.scope, [doc for doc, _ in mine])
    return {"results": results, "samples": samples, "elapsed": elapsed,
            "peak_hwm_mib": peak_hwm_mib, "process_hwm_mib": process_hwm_mib,
            "new_asked": questions.new_asked, "repeat_pool": len(questions.repeated),
            "cleaned": cleaned}  # fmt: skip


async def shipped_titles(http: httpx.AsyncClient) -> list[tuple[str, str]]:
    titles: list[tuple[str, str]] = []
    for scope in SCOPES:
        response = await http.get("/v1/documents", params={"scope": scope, "limit": PAGE_SIZE})
        response.raise_for_status()
        titles += [(scope, item["title"]) for item in response.json()["items"] if item.get("title")]
    if not titles:
        raise SystemExit("the shipped knowledge base is not in the database (run make run once)")
    return titles


async def listed_ids(http: httpx.AsyncClient, scope: str) -> list[str]:
    ids: list[str] = []
    cursor: str | None = None
    while True:
        params: dict[str, str | int] = {"scope": scope, "limit": PAGE_SIZE}
        if cursor:
            params["cursor"] = cursor
        response = await http.get("/v1/documents", params=params)
        response.raise_for_status()
        page = response.json()
        ids += [item["id"] for item in page["items"]]
        cursor = page.get("nextCursor")
        if not cursor:
            return ids


async def clean_up(http: httpx.AsyncClient, scope: str, ids: list[str]) -> int:
    deleted = 0
    for doc in ids:
        response = await http.delete(f"/v1/documents/{doc}")
        deleted += response.status_code == 204
    return deleted


def upload_source(marker: str, pool: list[str], rng: random.Random) -> tuple[str, str]:
    title = f"Soak record {marker}"
    lines = ["---", f"id: soak-{marker}", f"title: {title}", f"aliases: [{marker}]", "---", "",
             f"# {title}", ""]  # fmt: skip
    for number in range(UPLOAD_PARAGRAPHS):
        body = " ".join(rng.sample(pool, SENTENCES_PER_PARAGRAPH))
        lines += [f"The {marker} record says this. {body}" if number == 0 else body, ""]
    return title, "\n".join(lines)


async def client_loop(
    http: httpx.AsyncClient, number: int, rng: random.Random, questions: Questions,
    mine: list[tuple[str, str]], pool: list[str], run_id: str, args: argparse.Namespace,
    mix: list[float], deadline: float, results: Results,
) -> None:  # fmt: skip
    await asyncio.sleep(rng.uniform(0, args.think_s))  # clients do not start in lock-step
    uploads = 0
    while time.monotonic() < deadline and results.sent < MAX_REQUESTS:
        results.sent += 1
        kind = rng.choices(KINDS, weights=mix)[0]
        if kind == "delete" and not mine:
            kind = "upload"
        started = time.perf_counter()
        try:
            if kind in ("new", "repeat"):
                if kind == "new" and mine and rng.random() < UPLOAD_QUESTION_SHARE:
                    scope, question = args.scope, f"what does the {rng.choice(mine)[1]} say?"
                else:
                    scope, question = (questions.new() if kind == "new"
                                       else rng.choice(questions.repeated))  # fmt: skip
                response = await http.post("/v1/query", params={"trace": "false"},
                                           json={"query": question, "scope": scope})  # fmt: skip
            elif kind == "document":
                page = rng.choice(questions.titles)[0]
                response = await http.get("/v1/documents", params={"scope": page, "limit": 20})
            elif kind == "upload":
                uploads += 1
                marker = f"sk{run_id}c{number:02d}n{uploads:05d}"
                title, source = upload_source(marker, pool, rng)
                response = await http.post(
                    "/v1/documents", data={"scope": args.scope, "path": f"soak/{marker}.md"},
                    files={"file": (f"{marker}.md", source.encode(), "text/markdown")},
                )  # fmt: skip
                if response.status_code == SUCCESS["upload"]:
                    mine.append((response.json()["documentId"], title))
            else:
                doc, _ = mine.pop(rng.randrange(len(mine)))
                response = await http.delete(f"/v1/documents/{doc}")
            status = str(response.status_code)
            detail = f"{kind} {status} {response.text[:200]}"
        except httpx.TimeoutException as error:
            status, detail = "timeout", f"{kind} timeout: {type(error).__name__}"
        except httpx.HTTPError as error:
            status, detail = "transport", f"{kind} {type(error).__name__}: {error}"
        results.latencies_ms[kind].append((time.perf_counter() - started) * 1000)
        results.statuses[kind][status] += 1
        if status != str(SUCCESS[kind]) and len(results.error_samples) < ERROR_SAMPLES:
            results.error_samples.append(detail)
        await asyncio.sleep(rng.expovariate(1 / args.think_s) if args.think_s > 0 else 0)


def status_mib(pid: int, name: str) -> float:
    """One memory line of /proc/<pid>/status, this process alone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return float("nan")
    for line in status.splitlines():
        if line.startswith(f"{name}:"):
            return int(line.split()[1]) / 1024
    return float("nan")


_CACHE_LINE = re.compile(r'^kgs_text_cache_bytes\{kind="([^"]+)"\} (\S+)$', re.MULTILINE)
_WORKER_CACHE_LINE = re.compile(
    r'^kgs_answer_worker_text_cache_bytes\{[^}]*\bkind="([^"]+)"[^}]*\} (\S+)$', re.MULTILINE
)


async def take_sample(http: httpx.AsyncClient, pid: int, origin: float) -> Sample:
    caches: dict[str, float] = {}
    try:
        response = await http.get("/metrics")
        caches = {kind: float(value) for kind, value in _CACHE_LINE.findall(response.text)}
        for kind, value in _WORKER_CACHE_LINE.findall(response.text):
            caches[f"workers {kind}"] = caches.get(f"workers {kind}", 0.0) + float(value)
    except httpx.HTTPError:
        pass
    return Sample(round(time.monotonic() - origin, 1), status_mib(pid, "VmRSS"),
                  read_status_mib(pid, "VmRSS"), caches)  # fmt: skip


async def sampler(http: httpx.AsyncClient, pid: int, origin: float, deadline: float,
                  every_s: float, samples: list[Sample]) -> None:  # fmt: skip
    while time.monotonic() < deadline:
        sample = await take_sample(http, pid, origin)
        samples.append(sample)
        caches = ", ".join(f"{k} {v / MIB:.1f}" for k, v in sample.text_cache_bytes.items())
        print(f"  {sample.t_s:7.0f} s  RSS {sample.rss_mib:7.1f} MiB  with workers "
              f"{sample.tree_rss_mib:7.1f} MiB  text caches MiB: {caches}", flush=True)  # fmt: skip
        await asyncio.sleep(max(0.0, min(every_s, deadline - time.monotonic())))


def slope_mib_per_min(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of (seconds, MiB) points, in MiB per minute."""
    if len(points) < 2:
        return float("nan")
    mean_t = sum(t for t, _ in points) / len(points)
    mean_v = sum(v for _, v in points) / len(points)
    spread = sum((t - mean_t) ** 2 for t, _ in points)
    if spread == 0:
        return float("nan")
    return 60 * sum((t - mean_t) * (v - mean_v) for t, v in points) / spread


def slopes(samples: list[Sample], window_s: float, tail_s: float, end_s: float) -> dict[str, Any]:
    """Slopes of both series per window [k*window, (k+1)*window] and over the last tail_s."""
    windows = []
    count = max(1, round(end_s / window_s))  # the last window takes a shorter remainder
    for number in range(count):
        start = number * window_s
        stop = end_s if number == count - 1 else start + window_s
        inside = [s for s in samples if start <= s.t_s <= stop]
        windows.append({"from_s": start, "to_s": stop,
                        "samples": len(inside),
                        "rss": slope_mib_per_min([(s.t_s, s.rss_mib) for s in inside]),
                        "tree_rss": slope_mib_per_min([(s.t_s, s.tree_rss_mib)
                                                       for s in inside])})  # fmt: skip
    tail = [s for s in samples if s.t_s >= end_s - tail_s]
    return {"windows": windows, "tail": {
        "from_s": max(0.0, end_s - tail_s), "to_s": end_s, "samples": len(tail),
        "rss": slope_mib_per_min([(s.t_s, s.rss_mib) for s in tail]),
        "tree_rss": slope_mib_per_min([(s.t_s, s.tree_rss_mib) for s in tail])}}  # fmt: skip


def svg_plot(samples: list[Sample], title: str) -> str:
    """RSS over time, the service process and it with its workers, as a small SVG."""
    width, height, margin = PLOT_WIDTH, PLOT_HEIGHT, PLOT_MARGIN
    end = max(s.t_s for s in samples) or 1.0
    top = max(max(s.tree_rss_mib, s.rss_mib) for s in samples)
    top = (int(top / 256) + 1) * 256
    step_mib = 256 if top <= 2048 else 512

    def x(t: float) -> float:
        return margin + (width - 2 * margin) * t / end

    def y(v: float) -> float:
        return height - margin - (height - 2 * margin) * v / top

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
             f'<rect width="{width}" height="{height}" fill="white"/>',
             f'<text x="{width / 2}" y="20" text-anchor="middle" font-size="14">'
             f"{title}</text>"]  # fmt: skip
    for mib in range(0, top + 1, step_mib):
        parts.append(f'<line x1="{margin}" x2="{width - margin}" y1="{y(mib):.1f}" '
                     f'y2="{y(mib):.1f}" stroke="#ddd"/>'
                     f'<text x="{margin - 6}" y="{y(mib) + 4:.1f}" text-anchor="end">'
                     f"{mib}</text>")  # fmt: skip
    minute_step = max(1, int(end / 60 / 10))
    for minute in range(0, int(end / 60) + 1, minute_step):
        parts.append(f'<text x="{x(minute * 60):.1f}" y="{height - margin + 16}" '
                     f'text-anchor="middle">{minute}</text>')  # fmt: skip
    parts.append(f'<text x="{width / 2}" y="{height - 12}" text-anchor="middle">minutes</text>'
                 f'<text x="14" y="{height / 2}" text-anchor="middle" '
                 f'transform="rotate(-90 14 {height / 2})">RSS, MiB</text>')  # fmt: skip
    series = (("tree_rss_mib", "#c0392b", "service with its answer workers"),
              ("rss_mib", "#2471a3", "service process"))  # fmt: skip
    for row, (name, colour, label) in enumerate(series):
        points = " ".join(f"{x(s.t_s):.1f},{y(getattr(s, name)):.1f}" for s in samples)
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" '
                     f'points="{points}"/>'
                     f'<line x1="{margin + 10}" x2="{margin + 30}" y1="{margin + 16 * row}" '
                     f'y2="{margin + 16 * row}" stroke="{colour}" stroke-width="2"/>'
                     f'<text x="{margin + 36}" y="{margin + 16 * row + 4}">'
                     f"{label}</text>")  # fmt: skip
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def report(args: argparse.Namespace, pid: int, figures: dict[str, Any]) -> None:
    results: Results = figures["results"]
    samples: list[Sample] = figures["samples"]
    elapsed: float = figures["elapsed"]
    fitted = slopes(samples, args.window_s, args.tail_s, elapsed)
    kinds = ("text", "function", "workers text", "workers function")
    print("\n| t s | RSS MiB | with workers MiB | " + " | ".join(f"{k} cache MiB" for k in kinds)
          + " |\n|---|---|---|---|---|---|---|")  # fmt: skip
    for s in samples:
        caches = " | ".join(f"{s.text_cache_bytes.get(k, float('nan')) / MIB:.1f}" for k in kinds)
        print(f"| {s.t_s:.0f} | {s.rss_mib:.1f} | {s.tree_rss_mib:.1f} | {caches} |")
    print("\n| window | samples | RSS slope MiB/min | with workers MiB/min |")
    print("|---|---|---|---|")
    for w in [*fitted["windows"], {**fitted["tail"], "tail": True}]:
        name = (f"last {(w['to_s'] - w['from_s']) / 60:.0f} min" if w.get("tail")
                else f"{w['from_s'] / 60:g}-{w['to_s'] / 60:.3g} min")  # fmt: skip
        print(f"| {name} | {w['samples']} | {w['rss']:.2f} | {w['tree_rss']:.2f} |")
    peak = max(s.rss_mib for s in samples)
    peak_tree = max(s.tree_rss_mib for s in samples)
    print(f"\npeak RSS sampled: {peak:.0f} MiB (service), {peak_tree:.0f} MiB with workers; "
          f"VmHWM {figures['process_hwm_mib']:.0f} MiB (service), "
          f"{figures['peak_hwm_mib']:.0f} MiB summed with workers")  # fmt: skip
    print("\n| requests | sent | ok | p50 ms | p95 ms | other statuses |")
    print("|---|---|---|---|---|---|")
    for kind in KINDS:
        values, statuses = results.latencies_ms.get(kind, []), results.statuses.get(kind, Counter())
        ok = statuses.get(str(SUCCESS[kind]), 0)
        other = ", ".join(f"{k}: {v}" for k, v in statuses.items() if k != str(SUCCESS[kind]))
        print(f"| {kind} | {len(values)} | {ok} | {percentile(values, 50):.0f} | "
              f"{percentile(values, 95):.0f} | {other or '-'} |")  # fmt: skip
    for sample in results.error_samples:
        print(f"  error: {sample}")
    tail = fitted["tail"]["tree_rss"]
    verdict = "met" if tail <= SLOPE_TARGET_MIB_PER_MIN else "NOT met"
    print(f"\ntarget: RSS slope (with workers) over the last {args.tail_s / 60:.0f} min <= "
          f"{SLOPE_TARGET_MIB_PER_MIN} MiB/min: {tail:.2f} ({verdict}); {figures['new_asked']} new "
          f"questions, a pool of {figures['repeat_pool']} repeated; {figures['cleaned']} uploads "
          f"left at the end deleted")  # fmt: skip
    args.out.mkdir(parents=True, exist_ok=True)
    summary = {
        "url": args.url, "pid": pid, "duration_s": elapsed, "clients": args.clients,
        "think_s": args.think_s, "mix": dict(zip(KINDS, map(float, args.mix.split(",")),
                                                  strict=True)),
        "samples": [asdict(s) for s in samples], "slopes_mib_per_min": fitted,
        "peak_rss_mib": peak, "peak_tree_rss_mib": peak_tree,
        "vm_hwm_mib": figures["process_hwm_mib"],
        "vm_hwm_with_workers_mib": figures["peak_hwm_mib"],
        "requests": {k: dict(results.statuses.get(k, Counter())) for k in KINDS},
        "latency_ms": {k: {"p50": percentile(results.latencies_ms.get(k, []), 50),
                           "p95": percentile(results.latencies_ms.get(k, []), 95)} for k in KINDS},
        "new_questions": figures["new_asked"], "repeat_pool": figures["repeat_pool"],
        "error_samples": results.error_samples,
    }  # fmt: skip
    (args.out / "soak.json").write_text(json.dumps(summary, indent=2) + "\n")
    title = (f"RSS under the soak: {args.clients} clients, {elapsed / 60:.0f} min; "
             f"last {args.tail_s / 60:.0f} min {tail:+.2f} MiB/min")  # fmt: skip
    (args.out / "soak.svg").write_text(svg_plot(samples, title))
    print(f"wrote {args.out / 'soak.json'} and {args.out / 'soak.svg'}")


if __name__ == "__main__":
    main()
