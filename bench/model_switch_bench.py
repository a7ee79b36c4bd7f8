"""An embedding model switch as a user meets it: questions through the served API keep coming
while `kgs embeddings switch` builds and activates another model, then the API rolls it back.

    KGS_HOME=/tmp/kgs-switch-bench .venv/bin/python bench/model_switch_bench.py \
        [--scale 10k] [--model all-MiniLM-L6-v2@256] [--clients 2] [--think-s 0.5] [--phase-s 30]

A switch embeds every paragraph of the database, so run it on a database of its own (KGS_HOME):
it holds the evidence-latency corpus of the scale (bench/latency/corpus.py) and nothing else,
written with the real model's vectors (synthetic ones would make the audit compare the new
model with noise). A model left by an earlier run is rolled back and retired first.

Phases, each with `--clients` clients asking that corpus's questions through `POST /v1/query`
of a `kgs serve` process (development mode, no rate limit, one answer process), each client
waiting `--think-s` between its questions, after a warm-up:
before (the original model), during (the switch runs as a child `kgs embeddings switch`), after
(the new model active), rollback (`POST /v1/embeddings/rollback` and after). Printed per phase:
requests, failed requests (anything but 200), p50/p95 latency and the models the traces name;
and the switch's own figures: time, vectors written per second, audit.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
from latency import OUT
from latency.corpus import SCALES, ensure_corpus, generate, sentences
from latency.corpus import vocabulary as corpus_vocabulary
from latency.questions import make_questions
from latency.report import summary

from ingest.embedding_models import list_models, retire
from ingest.embeddings import SentenceTransformerEmbedder
from service.db import open_graph
from service.settings import Settings

PORT = 18765
BASE = f"http://127.0.0.1:{PORT}"
KGS = str(Path(sys.executable).parent / "kgs")


class Phase:
    """What the clients saw while one phase lasted."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.latencies_ms: list[float] = []
        self.failures: list[str] = []
        self.models: dict[str, int] = {}

    def record(self, started: float, response: httpx.Response | None, error: str = "") -> None:
        with self.lock:
            if response is None or response.status_code != 200:
                self.failures.append(error or f"{response.status_code if response else '?'}")
                return
            self.latencies_ms.append((time.perf_counter() - started) * 1000)
            model = response.json()["trace"].get("embedding", {}).get("model") or "none"
            self.models[model] = self.models.get(model, 0) + 1

    def figures(self) -> dict[str, Any]:
        return {"requests": len(self.latencies_ms) + len(self.failures),
                "failed": len(self.failures), "failures": self.failures[:5],
                "latencyMs": summary(self.latencies_ms), "models": self.models}  # fmt: skip


def _serve(env: dict[str, str]) -> subprocess.Popen[bytes]:
    server = subprocess.Popen([KGS, "serve", "--port", str(PORT)], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{BASE}/ready", timeout=2).status_code == 200:
                return server
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    server.kill()
    raise RuntimeError("kgs serve did not become ready")


def _clients(questions: list[str], scope: str, count: int, think_s: float, phase: list[Phase],
             stop: threading.Event) -> list[threading.Thread]:  # fmt: skip
    def ask(offset: int) -> None:
        turn = offset
        with httpx.Client(base_url=BASE, timeout=60) as client:
            while not stop.is_set():
                current, started = phase[0], time.perf_counter()
                try:
                    response = client.post("/v1/query", json={
                        "query": questions[turn % len(questions)], "scope": scope})  # fmt: skip
                    current.record(started, response)
                except httpx.HTTPError as error:
                    current.record(started, None, repr(error))
                turn += 1
                stop.wait(think_s)

    threads = [threading.Thread(target=ask, args=(i * 7,), daemon=True) for i in range(count)]
    for thread in threads:
        thread.start()
    return threads


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--scale", choices=sorted(SCALES), default="10k")
    parser.add_argument("--model", default="all-MiniLM-L6-v2@256")
    parser.add_argument("--clients", type=int, default=2)
    parser.add_argument("--think-s", type=float, default=0.5)
    parser.add_argument("--phase-s", type=float, default=30.0)
    args = parser.parse_args()
    if "KGS_HOME" not in os.environ:
        sys.exit("run on a database of its own: set KGS_HOME (see the module docstring)")
    settings = Settings.from_env()
    scope, paragraphs = SCALES[args.scale]
    pool = sentences()
    words = corpus_vocabulary(pool)
    corpus = generate(scope, paragraphs, pool, words)
    graph, _, close = open_graph(settings)
    figures: dict[str, Any] = {"date": time.strftime("%Y-%m-%d %H:%M"), "scale": args.scale,
                               "model": args.model, "clients": args.clients,
                               "thinkS": args.think_s}  # fmt: skip
    try:
        embedder = SentenceTransformerEmbedder(settings.embedding)
        figures["corpus"] = ensure_corpus(graph, corpus, settings, lambda: embedder)  # type: ignore[arg-type, return-value]
        for model in list_models(graph):  # an earlier run's model: back to the original
            if model["status"] == "active" and model["name"] != f"{embedder.name}@384":
                subprocess.run([KGS, "embeddings", "rollback"], check=True)
        for model in list_models(graph):
            if model["status"] != "active":
                retire(graph, str(model["name"]), settings.embedding)
        figures["paragraphs"] = list_models(graph)[0]["paragraphs"]
    finally:
        close()
    questions = [q for _, q in make_questions(corpus.titles, words, pool, 200, seed=7)]
    env = {**os.environ, "KGS_API_DEV_MODE": "on", "KGS_API_ANSWER_PROCESSES": "1",
           "KGS_API_RATE_LIMIT_REQUESTS": "0"}  # fmt: skip
    server = _serve(env)
    phases = {name: Phase() for name in ("warmup", "before", "during", "after", "rollback")}
    current = [phases["warmup"]]
    stop = threading.Event()
    threads = _clients(questions, scope, args.clients, args.think_s, current, stop)
    try:
        time.sleep(10)
        current[0] = phases["before"]
        time.sleep(args.phase_s)
        current[0] = phases["during"]
        started = time.perf_counter()
        done = subprocess.run([KGS, "embeddings", "switch", args.model], env=env,
                              capture_output=True, text=True)  # fmt: skip
        if done.returncode:
            raise RuntimeError(done.stderr[-2000:])
        report = json.loads(done.stdout)
        figures["switch"] = report | {"wallS": round(time.perf_counter() - started, 1),
                                      "vectorsPerS": round(report["embedded"] / max(
                                          report["elapsed_s"], 1e-9), 1)}  # fmt: skip
        time.sleep(1.0)  # every process reads the registry again
        current[0] = phases["after"]
        time.sleep(args.phase_s)
        current[0] = phases["rollback"]
        started = time.perf_counter()
        rolled = httpx.post(f"{BASE}/v1/embeddings/rollback", timeout=600)
        figures["rollbackS"] = round(time.perf_counter() - started, 2)
        figures["rollbackStatus"] = rolled.status_code
        time.sleep(args.phase_s)
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=90)
        server.terminate()
        server.wait(timeout=60)
    figures["phases"] = {name: phase.figures() for name, phase in phases.items()}
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "model_switch.json").write_text(json.dumps(figures, indent=1))
    print(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
