"""The ask tool over MCP against POST /v1/query, in one run on one `kgs serve`.

    .venv/bin/python bench/mcp_latency.py [--questions 40] [--port 8766]

1. ingests knowledge_base/ (a no-op when the database already holds it unchanged) and starts
   `kgs serve` with one read-only key (bench/load_bench.py's start_service);
2. builds the questions: the shipped general scopes' document titles in load_bench's PHRASINGS,
   shuffled (seeded), WARMUP_QUESTIONS of them first, unmeasured;
3. asks each question both ways, one after the other, alternating which goes first (the second
   may find the paragraphs' text caches warm): REST with ?trace=false (the answer and its
   citations, like the tool's result) through httpx, MCP through the SDK's own client over
   streamable HTTP (one client, stateless POSTs);
4. prints p50/p95 per path and the ratio MCP / REST; writes bench/out/mcp_latency.json.

Both clients run in this process on the same cores as the service and Neo4j; each latency is
the client's wall time from request to parsed result.
"""

from __future__ import annotations

import argparse
import json
import random
import secrets
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
from load_bench import (
    HOST,
    INGEST_TIMEOUT_S,
    KGS,
    PHRASINGS,
    ROOT,
    SCOPES,
    SEED,
    WARMUP_QUESTIONS,
    percentile,
    start_service,
    stop_service,
)
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

OUT = ROOT / "bench" / "out" / "mcp_latency.json"
REQUEST_TIMEOUT_S = 120.0
P50_TARGET_RATIO = 1.10  # issue 43: MCP's overhead at most 10% of REST's p50


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--questions", type=int, default=40, help="measured, after the warm-up")
    parser.add_argument("--port", type=int, default=8766)
    args = parser.parse_args()
    if not 1 <= args.questions <= 1000:
        raise SystemExit("--questions must be 1-1000")
    print("ingesting knowledge_base/ (unchanged documents are skipped)", flush=True)
    subprocess.run([str(KGS), "ingest", str(ROOT / "knowledge_base"), "--no-progress"],
                   check=True, timeout=INGEST_TIMEOUT_S, stdout=subprocess.DEVNULL)  # fmt: skip
    key = secrets.token_urlsafe(24)
    service = start_service(args.port, key, name="mcp-latency")
    try:
        figures = anyio.run(measure, f"http://{HOST}:{args.port}", key, args.questions)
    finally:
        stop_service(service)
    report(figures)


async def measure(url: str, key: str, count: int) -> dict[str, Any]:
    headers = {"X-API-Key": key}
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=REQUEST_TIMEOUT_S) as rest:
        questions = await _questions(rest, WARMUP_QUESTIONS + count)
        transport = streamable_http_client(f"{url}/mcp", http_client=httpx2.AsyncClient(
            headers=headers, timeout=REQUEST_TIMEOUT_S))  # fmt: skip
        async with Client(transport, read_timeout_seconds=REQUEST_TIMEOUT_S) as mcp:
            timings: dict[str, list[float]] = {"rest": [], "mcp": []}
            statuses: dict[str, list[str]] = {"rest": [], "mcp": []}
            for index, (scope, question) in enumerate(questions):
                order = ("rest", "mcp") if index % 2 == 0 else ("mcp", "rest")
                for path in order:
                    started = time.perf_counter()
                    status = await (_rest(rest, scope, question) if path == "rest"
                                    else _mcp(mcp, scope, question))  # fmt: skip
                    elapsed = (time.perf_counter() - started) * 1000
                    if index >= WARMUP_QUESTIONS:
                        timings[path].append(elapsed)
                        statuses[path].append(status)
    return {"questions": count, "timingsMs": timings, "statuses": statuses}


async def _questions(rest: httpx.AsyncClient, wanted: int) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for scope in SCOPES:
        page = (await rest.get("/v1/documents", params={"scope": scope, "limit": 200})).json()
        found += [(scope, p.format(d["title"])) for d in page["items"] if d.get("title")
                  for p in PHRASINGS]  # fmt: skip
    random.Random(SEED).shuffle(found)
    if len(found) < wanted:
        raise SystemExit(f"only {len(found)} questions; ask for fewer")
    return found[:wanted]


async def _rest(client: httpx.AsyncClient, scope: str, question: str) -> str:
    response = await client.post("/v1/query", params={"trace": "false"},
                                 json={"query": question, "scope": scope})  # fmt: skip
    response.raise_for_status()
    return str(response.json()["status"])


async def _mcp(client: Client, scope: str, question: str) -> str:
    result = await client.call_tool("ask", {"question": question, "scope": scope})
    if result.is_error:
        raise SystemExit(f"MCP ask failed: {result.content}")
    body = result.structured_content or json.loads(result.content[0].text)  # type: ignore[union-attr]
    return str(body["status"])


def report(figures: dict[str, Any]) -> None:
    timings = figures["timingsMs"]
    rows = {
        path: {"p50": statistics.median(values), "p95": percentile(values, 95),
               "mean": statistics.fmean(values)}
        for path, values in timings.items()
    }  # fmt: skip
    ratio = rows["mcp"]["p50"] / rows["rest"]["p50"]
    same = sum(a == b for a, b in zip(figures["statuses"]["rest"], figures["statuses"]["mcp"],
                                      strict=True))  # fmt: skip
    print(f"\n{figures['questions']} questions, each asked over REST and MCP (order alternating)")
    print(f"{'path':<6}{'p50 ms':>10}{'p95 ms':>10}{'mean ms':>10}")
    for path, row in rows.items():
        print(f"{path:<6}{row['p50']:>10.1f}{row['p95']:>10.1f}{row['mean']:>10.1f}")
    verdict = "met" if ratio <= P50_TARGET_RATIO else "NOT met"
    print(f"MCP / REST p50: {ratio:.3f} (target <= {P50_TARGET_RATIO:.2f}: {verdict}); "
          f"p95 ratio {rows['mcp']['p95'] / rows['rest']['p95']:.3f}; "
          f"same status {same}/{figures['questions']}")  # fmt: skip
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({**figures, "summary": rows, "p50Ratio": ratio}, indent=1))
    print(f"written: {Path(OUT).relative_to(ROOT)}")


if __name__ == "__main__":
    main()
