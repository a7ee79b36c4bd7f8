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

The clients run in this process on the same cores as the service and Neo4j. The steps are in
bench/faults/: knowledge_base.py (1), workload.py (3), samples.py (4), verification.py (5, 7)
and report.py (6).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import secrets
import sys
import time
from typing import Any

import httpx
from faults.knowledge_base import SCOPE, SEED, BaseDocument, prepare_knowledge_base, sentences
from faults.report import report
from faults.samples import Sample, sampler, take_sample
from faults.verification import clean_up, listing, verify
from faults.workload import (
    DEFAULT_MIX,
    REQUEST_TIMEOUT_S,
    ROUTES,
    Client,
    Results,
    client_loop,
)
from load_bench import (
    CLIENT_KEEPALIVE_S,
    HOST,
    read_peak_rss_mib,
    start_service,
    stop_service,
)

from service.db import open_graph
from service.db.graph import Graph
from service.settings import Settings

# One key for every simulated client: its rate limit is the default per-key limit times the
# number of clients, as if each client had its own key (KGS_API_RATE_LIMIT_REQUESTS overrides).
RATE_LIMIT_PER_CLIENT = 600  # requests per 60 s window


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
