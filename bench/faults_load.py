"""Load fault test (issue 8): 64 clients for 120 s on a mixed read/write workload against a
knowledge base of 5,000 documents. Targets: zero 5xx, zero lost writes (every acknowledged
upload is readable and findable afterwards, every acknowledged delete is gone, no write is ever
half done), no unbounded growth of the service's RSS or of open Neo4j transactions.

    .venv/bin/python bench/faults_load.py [--clients 64] [--duration-s 120] [--think-s 0.75]
                                          [--documents 5000] [--port 8766]

Steps, each bounded in time and count:
1. Knowledge base: DOCUMENTS generated Markdown documents (seeded: front matter with title,
   aliases and two relations to other documents, an H1 and KB_PARAGRAPHS paragraphs of sentences
   of the shipped knowledge base recombined) in .kgs/faults-load/kb, ingested with
   `kgs ingest --scope faults-load --prune` into the configured Neo4j. Paragraphs are embedded
   (the realistic path: the scope then has its own vector index); the first run takes a few
   minutes, later runs find every document unchanged. --prune also removes uploads a killed run
   left behind.
2. `kgs serve` on loopback with an API key generated for this run (read and write on
   faults-load only).
3. CLIENTS clients for DURATION seconds, each in a loop: a request picked by the seeded mix
   (query, document read, knowledge point read, knowledge point search, upload, delete), then an
   exponential think time. An upload is a new document with a unique marker word (its title,
   alias and knowledge point id); a delete removes a document this client uploaded and got
   acknowledged. A document read sometimes reads the client's own acknowledged upload, which
   must be there (read-your-write while the load runs). Every status that is not the route's
   success status is an error; a client timeout (REQUEST_TIMEOUT_S) is an error.
4. Every SAMPLE_INTERVAL_S: the service's RSS (VmRSS) and the open Neo4j transactions (all, and
   those of API requests, whose metadata carries a trace id) via SHOW TRANSACTIONS.
5. Verification after the load: every acknowledged upload still present reads back with the
   paragraphs of the text that was sent (count, text, exact offsets into the sent text), its
   marker finds its knowledge point by name search, and that knowledge point lists the document;
   every acknowledged delete reads 404, is absent from the listing and its marker finds nothing;
   every write that got no acknowledgement is either wholly present or wholly absent.
6. One table (every line starts with `load`), PASS/FAIL per target; exit status 1 on FAIL.
7. Clean-up: the documents uploaded by this run are deleted (the base knowledge base stays).

The clients run in this process on the same cores as the service and Neo4j.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import secrets
import shutil
import subprocess
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import httpx
from load_bench import (
    CLIENT_KEEPALIVE_S,
    HOST,
    KGS,
    percentile,
    read_peak_rss_mib,
    read_status_mib,
    start_service,
    stop_service,
)

from ingest.markdown import parse_markdown
from ingest.units import document_id
from service.db import open_graph
from service.db.graph import Graph
from service.settings import Settings, project_root

ROOT = project_root()
SCOPE = "faults-load"
KB = ROOT / ".kgs" / "faults-load" / "kb"  # .kgs/ is git-ignored
KB_STAMP = ".generated"  # generator version and parameters of the folder's content
GENERATOR_VERSION = "2"
KB_PARAGRAPHS = 3  # per base document
KB_RELATIONS = 2  # front-matter relations per base document
SENTENCES_PER_PARAGRAPH = 2
UPLOAD_PARAGRAPHS = 3
SEED = 11
ROUTES = ("query", "document", "point", "search", "upload", "delete")
LABELS = {
    "query": "POST /v1/query",
    "document": "GET /v1/documents/{id}",
    "point": "GET /v1/knowledge-points/{id}",
    "search": "GET /v1/knowledge-points?q=",
    "upload": "POST /v1/documents",
    "delete": "DELETE /v1/documents/{id}",
}
SUCCESS = {"query": 200, "document": 200, "point": 200, "search": 200, "upload": 201,
           "delete": 204}  # fmt: skip
DEFAULT_MIX = "0.40,0.20,0.08,0.07,0.15,0.10"
OWN_READ_SHARE = 0.2  # document reads that read the client's own acknowledged upload
INGEST_TIMEOUT_S = 1800.0
REQUEST_TIMEOUT_S = 120.0  # generous, but a timeout counts as an error
SAMPLE_INTERVAL_S = 5.0
MAX_REQUESTS = 200_000
VERIFY_CONCURRENCY = 8  # requests at once while verifying and cleaning up
VERIFY_TIMEOUT_S = 600.0  # the whole verification
PAGE_SIZE = 200  # documents per listing page (the API's maximum)
MAX_PAGES = 500  # listing pages read at most (100,000 documents)
RSS_SLOPE_MAX_MIB_PER_MIN = 10.0  # over the second half of the load
# The service's bounded caches (1000 traces, 4096 query vectors, 8192 passages' facts and
# sentences) fill for several minutes at this load, so RSS grows throughout a 120 s run by
# design; the slope is judged only on runs at least this long (a soak), else reported.
RSS_SLOPE_MIN_DURATION_S = 600.0
# One key for every simulated client: its rate limit is the default per-key limit times the
# number of clients, as if each client had its own key (KGS_API_RATE_LIMIT_REQUESTS overrides).
RATE_LIMIT_PER_CLIENT = 600  # requests per 60 s window
RSS_PEAK_MAX_MIB = 1536.0
ERROR_SAMPLES = 8
MARKUP = frozenset("[]`|*_<>")  # sentences with links or markup would add relations and noise


@dataclass(frozen=True)
class BaseDocument:
    point_id: str
    title: str
    path: str  # in the scope

    @property
    def id(self) -> str:
        return document_id(SCOPE, f"{SCOPE}/{self.path}")


@dataclass(frozen=True)
class Upload:
    marker: str
    path: str  # in the scope
    source: str

    @property
    def id(self) -> str:
        return document_id(SCOPE, f"{SCOPE}/{self.path}")

    @property
    def point_id(self) -> str:
        return f"up-{self.marker}"


@dataclass
class Results:
    latencies_ms: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    statuses: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    error_samples: list[str] = field(default_factory=list)
    acked_uploads: dict[str, Upload] = field(default_factory=dict)  # by document id
    acked_deletes: set[str] = field(default_factory=set)
    unacked_uploads: dict[str, Upload] = field(default_factory=dict)
    unacked_deletes: set[str] = field(default_factory=set)
    own_read_misses: int = 0  # an acknowledged upload that read 404 before its delete
    sent: int = 0


@dataclass
class Sample:
    at_s: float
    rss_mib: float
    open_transactions: int
    service_transactions: int


# -- 1. knowledge base ---------------------------------------------------------------------------


def sentences() -> list[str]:
    """Prose sentences of the shipped general knowledge base (our own text)."""
    found: list[str] = []
    for file in sorted((ROOT / "knowledge_base").glob("*/*.md")):
        for block in parse_markdown(file.read_text(encoding="utf-8")).blocks:
            if block.kind == "paragraph":
                found += [
                    s.strip()
                    for s in block.text.replace("\n", " ").split(". ")
                    if 40 <= len(s.strip()) <= 240 and not MARKUP.intersection(s)
                ]
    return [s if s.endswith(".") else s + "." for s in dict.fromkeys(found)]


def base_documents(count: int) -> list[BaseDocument]:
    rng = random.Random(SEED)
    adjectives = (
        "amber",
        "basalt",
        "cobalt",
        "dune",
        "ember",
        "fjord",
        "granite",
        "harbor",
        "indigo",
        "juniper",
        "kelp",
        "lichen",
        "marble",
        "nickel",
        "onyx",
        "pewter",
    )
    nouns = (
        "relay",
        "valve",
        "ledger",
        "beacon",
        "spindle",
        "lattice",
        "turbine",
        "gasket",
        "prism",
        "sluice",
        "capstan",
        "damper",
        "gimbal",
        "hopper",
        "trellis",
        "winch",
    )
    docs = []
    for n in range(count):
        title = f"{rng.choice(adjectives).title()} {rng.choice(nouns)} {n:05d}"
        docs.append(BaseDocument(point_id=f"fl-{n:05d}", title=title, path=f"fl-{n:05d}.md"))
    return docs  # fmt: skip


def base_text(doc: BaseDocument, docs: list[BaseDocument], pool: list[str],
              rng: random.Random) -> str:  # fmt: skip
    targets = rng.sample(docs, KB_RELATIONS + 1)
    relations = [t for t in targets if t.point_id != doc.point_id][:KB_RELATIONS]
    kinds = ("DEPENDS_ON", "PART_OF", "REFERENCES", "ENABLES")
    lines = ["---", f"id: {doc.point_id}", f"title: {doc.title}",
             f"aliases: [{doc.title.lower().rsplit(' ', 1)[0]} {int(doc.point_id[3:])}]",
             "kind: component", "updated: 2026-01-15", "relations:"]  # fmt: skip
    lines += [f"  - {{type: {rng.choice(kinds)}, target: {t.point_id}, confidence: 0.8}}"
              for t in relations]  # fmt: skip
    lines += ["---", "", f"# {doc.title}", ""]
    first = f"The {doc.title} works together with the {relations[0].title}."
    for number in range(KB_PARAGRAPHS):
        if number == 1:
            lines += ["## Operation", ""]
        body = " ".join(rng.sample(pool, SENTENCES_PER_PARAGRAPH))
        lines += [f"{first} {body}" if number == 0 else body, ""]
    return "\n".join(lines)


def prepare_knowledge_base(count: int) -> list[BaseDocument]:
    """Generate the folder unless it already holds this generator's output, then ingest it."""
    docs = base_documents(count)
    stamp = f"{GENERATOR_VERSION} {count} {KB_PARAGRAPHS} {SENTENCES_PER_PARAGRAPH} {SEED}"
    marker = KB / KB_STAMP
    if not (marker.is_file() and marker.read_text() == stamp):
        shutil.rmtree(KB, ignore_errors=True)
        KB.mkdir(parents=True)
        pool, rng = sentences(), random.Random(SEED)
        for doc in docs:
            (KB / doc.path).write_text(base_text(doc, docs, pool, rng), encoding="utf-8")
        marker.write_text(stamp)  # hidden: discovery skips it (and it is not Markdown)
        print(f"generated {count} documents in {KB}", flush=True)
    print(f"ingesting {KB} into scope {SCOPE} (unchanged documents are skipped)", flush=True)
    started = time.monotonic()
    done = subprocess.run(
        [str(KGS), "ingest", str(KB), "--scope", SCOPE, "--prune", "--no-progress"],
        check=True, timeout=INGEST_TIMEOUT_S, capture_output=True, text=True,
    )  # fmt: skip
    summary = done.stdout.strip().splitlines()
    print("  " + "\n  ".join(summary[:4]) + f"\n  ({time.monotonic() - started:.0f} s)", flush=True)
    return docs


# -- 3. load -------------------------------------------------------------------------------------


def upload_source(marker: str, target: BaseDocument, pool: list[str], rng: random.Random) -> str:
    lines = ["---", f"id: up-{marker}", f"title: Upload {marker}", f"aliases: [{marker}]",
             "kind: component", "relations:",
             f"  - {{type: REFERENCES, target: {target.point_id}, confidence: 0.7}}",
             "---", "", f"# Upload {marker}", ""]  # fmt: skip
    for number in range(UPLOAD_PARAGRAPHS):
        body = " ".join(rng.sample(pool, SENTENCES_PER_PARAGRAPH))
        lines += [f"The {marker} record refers to the {target.title}. {body}" if number == 0
                  else body, ""]  # fmt: skip
    return "\n".join(lines)


@dataclass
class Client:
    number: int
    rng: random.Random
    mine: list[Upload] = field(default_factory=list)  # acknowledged, not deleted
    uploads: int = 0


async def client_loop(
    http: httpx.AsyncClient, client: Client, docs: list[BaseDocument], pool: list[str],
    run_id: str, mix: list[float], think_s: float, deadline: float, results: Results,
) -> None:  # fmt: skip
    rng = client.rng
    await asyncio.sleep(rng.uniform(0, think_s))  # clients do not start in lock-step
    while time.monotonic() < deadline and results.sent < MAX_REQUESTS:
        results.sent += 1
        kind = rng.choices(ROUTES, weights=mix)[0]
        if kind == "delete" and not client.mine:
            kind = "upload"  # nothing of ours to delete yet
        started = time.perf_counter()
        upload: Upload | None = None
        target: str | None = None
        own_read = False
        try:
            if kind == "query":
                doc = rng.choice(docs)
                response = await http.post("/v1/query", params={"trace": "false"},
                                           json={"query": f"what is the {doc.title}?",
                                                 "scope": SCOPE})  # fmt: skip
            elif kind == "document":
                own_read = bool(client.mine) and rng.random() < OWN_READ_SHARE
                target = rng.choice(client.mine).id if own_read else rng.choice(docs).id
                response = await http.get(f"/v1/documents/{target}")
            elif kind == "point":
                response = await http.get(f"/v1/knowledge-points/{rng.choice(docs).point_id}",
                                          params={"scope": SCOPE})  # fmt: skip
            elif kind == "search":
                response = await http.get("/v1/knowledge-points", params={
                    "q": rng.choice(docs).title, "scope": SCOPE, "limit": 5})  # fmt: skip
            elif kind == "upload":
                client.uploads += 1
                marker = f"mk{run_id}c{client.number:02d}n{client.uploads:04d}"
                upload = Upload(
                    marker,
                    f"uploads/{marker}.md",
                    upload_source(marker, rng.choice(docs), pool, rng),
                )
                response = await http.post(
                    "/v1/documents", data={"scope": SCOPE, "path": upload.path},
                    files={"file": (f"{marker}.md", upload.source.encode(), "text/markdown")},
                )  # fmt: skip
            else:
                upload = client.mine.pop(rng.randrange(len(client.mine)))
                target = upload.id
                response = await http.delete(f"/v1/documents/{target}")
            status = str(response.status_code)
            detail = f"{kind} {status} {response.text[:200]}"
        except httpx.TimeoutException as error:
            status, detail = "timeout", f"{kind} timeout: {type(error).__name__}"
        except httpx.HTTPError as error:
            status, detail = "transport", f"{kind} {type(error).__name__}: {error}"
        results.latencies_ms[kind].append((time.perf_counter() - started) * 1000)
        results.statuses[kind][status] += 1
        ok = status == str(SUCCESS[kind])
        if kind == "upload" and upload is not None:
            if status.startswith("2"):
                results.acked_uploads[upload.id] = upload
                client.mine.append(upload)
            else:
                results.unacked_uploads[upload.id] = upload
        elif kind == "delete" and target is not None:
            if status.startswith("2"):
                results.acked_deletes.add(target)
            else:
                results.unacked_deletes.add(target)
        elif own_read and status == "404":
            results.own_read_misses += 1
        if not ok and len(results.error_samples) < ERROR_SAMPLES:
            results.error_samples.append(detail)
        await asyncio.sleep(rng.expovariate(1 / think_s) if think_s > 0 else 0)


# -- 4. samples ----------------------------------------------------------------------------------


def read_rss_mib(pid: int) -> float:
    return read_status_mib(pid, "VmRSS")


async def take_sample(graph: Graph, pid: int, origin: float) -> Sample:
    row = (await asyncio.to_thread(graph.read, "admin/open_transactions"))[0]
    # The sampler's own transaction is open while it counts.
    return Sample(round(time.monotonic() - origin, 1), read_rss_mib(pid), int(row["open"]) - 1,
                  int(row["service"]))  # fmt: skip


async def sampler(graph: Graph, pid: int, origin: float, deadline: float, samples: list[Sample],
                  results: Results) -> None:  # fmt: skip
    while time.monotonic() < deadline:
        sample = await take_sample(graph, pid, origin)
        samples.append(sample)
        fives = sum(n for c in results.statuses.values() for s, n in c.items() if s[0] == "5")
        print(f"  t={sample.at_s:5.0f} s  rss {sample.rss_mib:6.0f} MiB  transactions "
              f"{sample.open_transactions} (service {sample.service_transactions})  requests "
              f"{results.sent}  5xx {fives}  uploads {len(results.acked_uploads)}  deletes "
              f"{len(results.acked_deletes)}", flush=True)  # fmt: skip
        await asyncio.sleep(max(0.0, min(SAMPLE_INTERVAL_S, deadline - time.monotonic())))


# -- 5. verification -----------------------------------------------------------------------------


@dataclass
class Verdict:
    uploads_verified: int = 0
    uploads_failed: list[str] = field(default_factory=list)
    deletes_verified: int = 0
    deletes_failed: list[str] = field(default_factory=list)
    unacked: Counter[str] = field(default_factory=Counter)  # "upload present", "delete half", ...
    half: list[str] = field(default_factory=list)


def expected_paragraphs(upload: Upload) -> list[str]:
    return [b.text for b in parse_markdown(upload.source).blocks]


async def check_upload(http: httpx.AsyncClient, upload: Upload) -> str | None:
    """None when the upload is wholly there and findable; else what is wrong."""
    response = await http.get(f"/v1/documents/{upload.id}")
    if response.status_code != 200:
        return f"{upload.marker}: GET {response.status_code}"
    paragraphs = response.json()["paragraphs"]
    texts = [p["text"] for p in paragraphs]
    if texts != expected_paragraphs(upload):
        return f"{upload.marker}: {len(texts)} paragraphs differ from the text sent"
    if any(upload.source[p["startOffset"] : p["endOffset"]] != p["text"] for p in paragraphs):
        return f"{upload.marker}: offsets do not index the text sent"
    found = await http.get("/v1/knowledge-points",
                           params={"q": upload.marker, "scope": SCOPE, "limit": 5})  # fmt: skip
    if upload.point_id not in [m["id"] for m in found.json().get("items", [])]:
        return f"{upload.marker}: name search does not find {upload.point_id}"
    point = await http.get(f"/v1/knowledge-points/{upload.point_id}", params={"scope": SCOPE})
    if upload.id not in [d["id"] for d in point.json().get("documents", [])]:
        return f"{upload.marker}: its knowledge point does not list the document"
    return None


async def check_deleted(http: httpx.AsyncClient, upload: Upload, listed: set[str]) -> str | None:
    response = await http.get(f"/v1/documents/{upload.id}")
    if response.status_code != 404:
        return f"{upload.marker}: GET {response.status_code} after an acknowledged delete"
    if upload.id in listed:
        return f"{upload.marker}: still in the listing"
    found = await http.get("/v1/knowledge-points",
                           params={"q": upload.marker, "scope": SCOPE, "limit": 5})  # fmt: skip
    if upload.point_id in [m["id"] for m in found.json().get("items", [])]:
        return f"{upload.marker}: its knowledge point is still found"
    return None


async def presence(http: httpx.AsyncClient, upload: Upload) -> str:
    """'present' (every paragraph), 'absent', or 'half' (anything in between)."""
    response = await http.get(f"/v1/documents/{upload.id}")
    if response.status_code == 404:
        return "absent"
    if response.status_code == 200 and len(response.json()["paragraphs"]) == len(
        expected_paragraphs(upload)
    ):
        return "present"
    return "half"


async def listing(http: httpx.AsyncClient) -> set[str]:
    ids: set[str] = set()
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        params: dict[str, Any] = {"scope": SCOPE, "limit": PAGE_SIZE}
        if cursor:
            params["cursor"] = cursor
        page = (await http.get("/v1/documents", params=params)).raise_for_status().json()
        ids.update(item["id"] for item in page["items"])
        cursor = page["nextCursor"]
        if not cursor:
            break
    return ids


async def bounded(jobs: list[Callable[[], Awaitable[None]]]) -> None:
    gate = asyncio.Semaphore(VERIFY_CONCURRENCY)

    async def one(job: Callable[[], Awaitable[None]]) -> None:
        async with gate:
            await job()

    await asyncio.gather(*(one(job) for job in jobs))


async def verify(http: httpx.AsyncClient, results: Results) -> tuple[Verdict, set[str]]:
    """The verdict, and the ids of this run's uploads that are present now (to clean up)."""
    verdict = Verdict()
    live = {i: u for i, u in results.acked_uploads.items() if i not in results.acked_deletes
            and i not in results.unacked_deletes}  # fmt: skip
    deleted = [results.acked_uploads[i] for i in results.acked_deletes]
    listed = await listing(http)
    present: set[str] = set()

    async def acked_upload(upload: Upload) -> None:
        problem = await check_upload(http, upload)
        if problem is None and upload.id not in listed:
            problem = f"{upload.marker}: missing from the listing"
        if problem:
            verdict.uploads_failed.append(problem)
        else:
            verdict.uploads_verified += 1
        present.add(upload.id)

    async def acked_delete(upload: Upload) -> None:
        problem = await check_deleted(http, upload, listed)
        if problem:
            verdict.deletes_failed.append(problem)
        else:
            verdict.deletes_verified += 1

    async def unacked(kind: str, upload: Upload) -> None:
        state = await presence(http, upload)
        verdict.unacked[f"{kind} {state}"] += 1
        if state == "half":
            verdict.half.append(f"{kind} {upload.marker}")
        if state != "absent":
            present.add(upload.id)

    unacked_deletes = [results.acked_uploads[i] for i in results.unacked_deletes]
    jobs: list[Callable[[], Awaitable[None]]] = [
        *(partial(acked_upload, u) for u in live.values()),
        *(partial(acked_delete, u) for u in deleted),
        *(partial(unacked, "upload", u) for u in results.unacked_uploads.values()),
        *(partial(unacked, "delete", u) for u in unacked_deletes),
    ]
    await asyncio.wait_for(bounded(jobs), VERIFY_TIMEOUT_S)
    return verdict, present


async def clean_up(http: httpx.AsyncClient, ids: set[str]) -> int:
    """Delete this run's uploads; the number that could not be deleted."""
    failed = 0

    async def remove(doc_id: str) -> None:
        nonlocal failed
        response = await http.delete(f"/v1/documents/{doc_id}")
        failed += response.status_code not in (204, 404)

    await bounded([partial(remove, d) for d in sorted(ids)])
    return failed


# -- the run -------------------------------------------------------------------------------------


async def run(args: argparse.Namespace, mix: list[float], key: str, pid: int,
              docs: list[BaseDocument], graph: Graph) -> dict[str, Any]:  # fmt: skip
    limits = httpx.Limits(max_connections=args.clients + 8, max_keepalive_connections=args.clients,
                          keepalive_expiry=CLIENT_KEEPALIVE_S)  # fmt: skip
    async with httpx.AsyncClient(
        base_url=f"http://{HOST}:{args.port}", headers={"X-API-Key": key},
        timeout=REQUEST_TIMEOUT_S, limits=limits,
    ) as http:  # fmt: skip
        listed = await listing(http)
        missing = [d for d in docs if d.id not in listed]
        if missing:
            raise SystemExit(f"{len(missing)} base documents are not in scope {SCOPE}")
        pool = sentences()
        run_id = secrets.token_hex(3)  # markers unique across runs; the mix itself is seeded
        results, samples = Results(), list[Sample]()
        origin = time.monotonic()
        deadline = origin + args.duration_s
        clients = [Client(n, random.Random(SEED * 1000 + n)) for n in range(args.clients)]
        await asyncio.gather(
            sampler(graph, pid, origin, deadline, samples, results),
            *(client_loop(http, c, docs, pool, run_id, mix, args.think_s, deadline, results)
              for c in clients),
        )  # fmt: skip
        elapsed = time.monotonic() - origin
        after = await take_sample(graph, pid, origin)  # every client has its answer by now
        print(f"load over after {elapsed:.0f} s; verifying", flush=True)
        verdict, present = await verify(http, results)
        cleanup_failures = await clean_up(http, present)
    return {"results": results, "samples": samples, "after": after, "elapsed": elapsed,
            "verdict": verdict, "cleanup_failures": cleanup_failures,
            "cleaned": len(present)}  # fmt: skip


def slope_mib_per_min(samples: list[Sample], from_s: float) -> float:
    points = [(s.at_s / 60, s.rss_mib) for s in samples if s.at_s >= from_s]
    if len(points) < 2:
        return float("nan")
    mean_t = sum(t for t, _ in points) / len(points)
    mean_r = sum(r for _, r in points) / len(points)
    spread = sum((t - mean_t) ** 2 for t, _ in points)
    return sum((t - mean_t) * (r - mean_r) for t, r in points) / spread if spread else 0.0


def report(args: argparse.Namespace, figures: dict[str, Any], documents: int,
           peak_rss_mib: float) -> bool:  # fmt: skip
    results: Results = figures["results"]
    samples: list[Sample] = figures["samples"]
    after: Sample = figures["after"]
    verdict: Verdict = figures["verdict"]
    elapsed: float = figures["elapsed"]
    everything = [v for values in results.latencies_ms.values() for v in values]
    fives = sum(n for c in results.statuses.values() for s, n in c.items() if s[0] == "5")
    timeouts = sum(c["timeout"] for c in results.statuses.values())
    transport = sum(c["transport"] for c in results.statuses.values())
    unexpected = sum(n for kind, c in results.statuses.items() for s, n in c.items()
                     if s != str(SUCCESS[kind]) and s[0] == "4")  # fmt: skip
    print(
        f"\n{args.clients} clients, {elapsed:.0f} s, mean think time {args.think_s} s, mix "
        f"{','.join(ROUTES)} {args.mix}; {documents} base documents in scope {SCOPE}"
    )
    for sample in results.error_samples:
        print(f"  error: {sample}")
    for problem in verdict.uploads_failed[:ERROR_SAMPLES] + verdict.deletes_failed[:ERROR_SAMPLES]:
        print(f"  lost write: {problem}")
    print()
    print("load | route | requests | req/s | p50 ms | p95 ms | p99 ms | statuses |")
    for kind in ROUTES:
        values = results.latencies_ms.get(kind, [])
        statuses = " ".join(f"{s}:{n}" for s, n in sorted(results.statuses[kind].items()))
        print(f"load | {LABELS[kind]} | {len(values)} | {len(values) / elapsed:.1f} | "
              f"{percentile(values, 50):.0f} | {percentile(values, 95):.0f} | "
              f"{percentile(values, 99):.0f} | {statuses or '-'} |")  # fmt: skip
    print(f"load | all | {len(everything)} | {len(everything) / elapsed:.1f} | "
          f"{percentile(everything, 50):.0f} | {percentile(everything, 95):.0f} | "
          f"{percentile(everything, 99):.0f} | |")  # fmt: skip
    rss = [s.rss_mib for s in samples] or [float("nan")]
    slope = slope_mib_per_min(samples, args.duration_s / 2)
    judge_slope = args.duration_s >= RSS_SLOPE_MIN_DURATION_S
    service_max = max((s.service_transactions for s in samples), default=0)
    open_max = max((s.open_transactions for s in samples), default=0)
    unacked = ", ".join(f"{k} {n}" for k, n in sorted(verdict.unacked.items())) or "none"
    live = len(results.acked_uploads) - len(results.acked_deletes)
    targets: list[tuple[str, str, bool | None]] = [
        ("5xx responses", f"{fives}", fives == 0),
        ("client timeouts", f"{timeouts} (limit {REQUEST_TIMEOUT_S:.0f} s)", timeouts == 0),
        ("transport errors", f"{transport}", transport == 0),
        ("unexpected 4xx", f"{unexpected}", unexpected == 0),
        ("acked uploads verified (read back, name search, listing)",
         f"{verdict.uploads_verified}/{live} ({len(results.acked_uploads)} acked in all)",
         verdict.uploads_verified == live and not verdict.uploads_failed),
        ("acked deletes verified (404, not listed, not found)",
         f"{verdict.deletes_verified}/{len(results.acked_deletes)}",
         verdict.deletes_verified == len(results.acked_deletes) and not verdict.deletes_failed),
        ("own uploads read back during the load", f"{results.own_read_misses} misses",
         results.own_read_misses == 0),
        ("unacknowledged writes never half done", f"{unacked}", not verdict.half),
        (f"service RSS MiB first/peak/last, VmHWM <= {RSS_PEAK_MAX_MIB:.0f}",
         f"{rss[0]:.0f}/{max(rss):.0f}/{rss[-1]:.0f}, VmHWM {peak_rss_mib:.0f}",
         peak_rss_mib <= RSS_PEAK_MAX_MIB),
        (f"service RSS slope over the 2nd half <= {RSS_SLOPE_MAX_MIB_PER_MIN:.0f} MiB/min"
         + ("" if judge_slope else
            f" (judged on runs >= {RSS_SLOPE_MIN_DURATION_S:.0f} s; caches still fill)"),
         f"{slope:+.1f} MiB/min",
         slope <= RSS_SLOPE_MAX_MIB_PER_MIN if judge_slope else None),
        ("Neo4j transactions of the service max / after the load (0)",
         f"{service_max} / {after.service_transactions} (all sessions: max {open_max}, "
         f"after {after.open_transactions})", after.service_transactions == 0),
        ("clean-up of this run's uploads", f"{figures['cleaned']} deleted, "
         f"{figures['cleanup_failures']} failed", figures["cleanup_failures"] == 0),
    ]  # fmt: skip
    print("load | target | figure | result |")
    for name, figure, met in targets:
        verdict_text = "reported" if met is None else "PASS" if met else "FAIL"
        print(f"load | {name} | {figure} | {verdict_text} |")
    passed = all(met is not False for _, _, met in targets)
    print(f"load | overall | | {'PASS' if passed else 'FAIL'} |")
    sys.stdout.flush()
    return passed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--duration-s", type=float, default=120.0)
    parser.add_argument("--think-s", type=float, default=0.75, help="mean pause between requests")
    parser.add_argument("--documents", type=int, default=5000, help="base knowledge base size")
    parser.add_argument("--port", type=int, default=8766)
    parser.add_argument("--mix", default=DEFAULT_MIX, help=",".join(ROUTES) + " weights")
    args = parser.parse_args()
    if not (1 <= args.clients <= 256 and 1 <= args.duration_s <= 1800):
        raise SystemExit("--clients must be 1-256 and --duration-s 1-1800")
    if not 10 <= args.documents <= 100_000:
        raise SystemExit("--documents must be 10-100000")
    mix = [float(x) for x in args.mix.split(",")]
    if len(mix) != len(ROUTES) or sum(mix) <= 0 or min(mix) < 0:
        raise SystemExit(f"--mix takes {len(ROUTES)} weights: {','.join(ROUTES)}")

    docs = prepare_knowledge_base(args.documents)
    graph, _, close = open_graph(Settings.from_env(), ensure_schema=False)
    key = secrets.token_urlsafe(24)
    os.environ.setdefault("KGS_API_RATE_LIMIT_REQUESTS", str(RATE_LIMIT_PER_CLIENT * args.clients))
    service = start_service(args.port, key, name="faults-load", scopes=(SCOPE,), write=True)
    try:
        figures = asyncio.run(run(args, mix, key, service.pid, docs, graph))
    finally:
        peak_rss_mib = read_peak_rss_mib(service.pid)
        stop_service(service)
        close()
    sys.exit(0 if report(args, figures, len(docs), peak_rss_mib) else 1)


if __name__ == "__main__":
    main()
