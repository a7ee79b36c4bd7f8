"""The evidence path as a client meets it: `kgs serve` started as a user starts it, questions
sent to `POST /v1/query`, and the memory the served processes hold (the service and its answer
workers, from /proc)."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

READY_TIMEOUT_S = 300.0  # a large database takes a while to open its indexes


@contextmanager
def served(port: int, env: Mapping[str, str] | None = None) -> Iterator[subprocess.Popen[bytes]]:
    """`kgs serve --port` in development mode (no keys), until the block ends."""
    server = subprocess.Popen(
        [str(Path(sys.executable).parent / "kgs"), "serve", "--port", str(port)],
        env={**os.environ, "KGS_API_DEV_MODE": "on", **(env or {})},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        wait_ready(port)
        yield server
    finally:
        server.terminate()
        server.wait(60)


def wait_ready(port: int) -> None:
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/ready", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(1)
    raise SystemExit("kgs serve did not become ready")


def ask_served(
    port: int, pid: int, scope: str, questions: Sequence[str], warmup: int
) -> dict[str, Any]:
    """Each question twice, sequentially, after `warmup` untimed ones. The first ask meets
    documents new to the service's text caches (sentence splits, decoded analyses); asked again,
    it finds them there, as the in-process warm measures do. Round-trip p50/p95 of both passes,
    and the served processes' resident memory afterwards."""
    passes: dict[str, list[float]] = {"firstAsk": [], "askedAgain": []}
    with httpx.Client(base_url=f"http://127.0.0.1:{port}/v1", timeout=120.0) as client:
        for question in questions[:warmup]:
            _ask(client, scope, question)
        for elapsed in passes.values():
            for question in questions[warmup:]:
                elapsed.append(_ask(client, scope, question))
    return {
        "questions": len(questions) - warmup,
        **{name: _percentiles(elapsed) for name, elapsed in passes.items()},
        "rssMiB": process_tree_rss_mib(pid),
    }


def _ask(client: httpx.Client, scope: str, question: str) -> float:
    started = time.perf_counter()
    response = client.post("/query?trace=false", json={"query": question, "scope": scope})
    response.raise_for_status()
    return (time.perf_counter() - started) * 1000


def _percentiles(elapsed: Sequence[float]) -> dict[str, float]:
    ordered = sorted(elapsed)
    return {
        "p50Ms": round(statistics.median(ordered), 1),
        "p95Ms": round(ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))], 1),
    }


def process_tree_rss_mib(pid: int) -> dict[str, float]:
    """Resident and peak resident memory of the process and its descendants, in MiB."""
    pids, queue = [], [pid]
    while queue:
        current = queue.pop()
        pids.append(current)
        try:
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
        except OSError:
            children = []
        queue.extend(int(c) for c in children)
    totals = {"VmRSS": 0.0, "VmHWM": 0.0}
    for current in pids:
        try:
            lines = Path(f"/proc/{current}/status").read_text().splitlines()
        except OSError:
            continue
        for line in lines:
            key, _, value = line.partition(":")
            if key in totals:
                totals[key] += int(value.split()[0]) / 1024
    return {"processes": len(pids), "rss": round(totals["VmRSS"], 1),
            "peakRss": round(totals["VmHWM"], 1)}  # fmt: skip
