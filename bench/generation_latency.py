"""What generation adds to the answer path's latency, through a served API.

    .venv/bin/python bench/generation_latency.py [--questions 50] [--scope pub-clapnq]

Serves `kgs serve` (development mode) against the configured Neo4j, with a scripted
OpenAI-compatible provider in this process (tests/fake_llm.py) that streams a faithful answer:
the first two evidence sentences it is shown, each with its citation id, in chunks of 8
characters 5 ms apart. Each question of bench/public_sets.py's ClapNQ set (scope pub-clapnq,
built and ingested by that script) is asked through POST /v1/query/stream with generate: true.
Printed, p50 and p95:

- request -> provider: what the answer path does before it calls the provider;
- first line -> first delta: from the provider's sending the end of its first line to the
  client's receiving the `delta` event (the service's share: parsing, the line checks, the
  injection screen, the event);
- request -> first delta, and the provider's own time to its first line, for scale;
- review: the generation stage after the provider's reply (trace.generation.reviewMs);
- and, without a provider (`generate` false), the whole answer, to compare with the composed
  path's usual figures.

Deltas are whole sentences (docs/generation.md#streaming): a sentence is released only once its
line is complete and checked, so the provider's time to its first complete line, not to its
first token, is the provider's part.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx
from latency.served import served
from public_sets import clapnq_set

from service.settings import project_root

sys.path.insert(0, str(project_root()))
from tests.fake_llm import Reply, fake_llm

PORT = 8011
CHUNK_CHARS, CHUNK_DELAY_S = 8, 0.005


class FirstLine:
    """When the provider was called and when it had sent the end of its first line (the
    generation calls only: with a provider set, the judge calls it too)."""

    def __init__(self) -> None:
        self.called_at: list[float] = []
        self.sent_at: list[float] = []
        self.lock = threading.Lock()

    def write(self, body: dict[str, Any]) -> str:
        user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        evidence = json.loads(user).get("evidence")
        if evidence is None:
            return "{}"  # a judge call: an invalid verdict, the judge steps aside
        with self.lock:
            self.called_at.append(time.monotonic())
        return "\n".join(f"{e['text']} [{e['id']}]" for e in evidence[:2])

    def on_chunk(self, sent: str) -> None:
        with self.lock:
            if "\n" in sent and len(self.sent_at) < len(self.called_at):
                self.sent_at.append(time.monotonic())


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--eval-dir", default=str(project_root().parent / "shared" / "eval"))
    parser.add_argument("--questions", type=int, default=50)
    args = parser.parse_args(argv)
    public = clapnq_set(Path(args.eval_dir))
    questions = [q.question for q in public.questions if q.answerable][: args.questions]
    first_line = FirstLine()
    reply = Reply(write=first_line.write, on_chunk=first_line.on_chunk, chunk_chars=CHUNK_CHARS,
                  chunk_delay_s=CHUNK_DELAY_S)  # fmt: skip
    with fake_llm([reply]) as (url, _):
        env = {"KGS_LLM_BASE_URL": url, "KGS_GENERATION_TIMEOUT_S": "60"}
        with served(PORT, env):
            figures = _measure(questions, public.scope, first_line)
    print(json.dumps(figures, indent=1))
    return 0


def _measure(questions: Sequence[str], scope: str, first_line: FirstLine) -> dict[str, Any]:
    before, line_to_delta, to_delta, provider_line, review, plain = [], [], [], [], [], []
    base = f"http://127.0.0.1:{PORT}/v1"
    with httpx.Client(timeout=120.0) as client:
        for question in questions:
            body = {"query": question, "scope": scope}
            started = time.monotonic()
            client.post(f"{base}/query?trace=false", json=body).raise_for_status()
            plain.append(time.monotonic() - started)
            calls = len(first_line.called_at)
            started = time.monotonic()
            delta_at, answer = None, None
            with client.stream("POST", f"{base}/query/stream",
                               json={**body, "generate": True}) as events:  # fmt: skip
                kind = None
                for line in events.iter_lines():
                    if line.startswith("event: "):
                        kind = line[len("event: ") :]
                    elif line.startswith("data: ") and kind == "delta" and delta_at is None:
                        delta_at = time.monotonic()
                    elif line.startswith("data: ") and kind == "answer":
                        answer = json.loads(line[len("data: ") :])
            if len(first_line.called_at) == calls or len(first_line.sent_at) < len(
                first_line.called_at
            ):
                continue  # abstained (the provider was not called), or no line ended
            before.append(first_line.called_at[-1] - started)
            generation = (answer or {}).get("trace", {}).get("generation") or {}
            if generation.get("reviewMs") is not None:
                review.append(generation["reviewMs"] / 1000)
            if delta_at is not None:
                to_delta.append(delta_at - started)
                provider_line.append(first_line.sent_at[-1] - first_line.called_at[-1])
                line_to_delta.append(delta_at - first_line.sent_at[-1])
    return {
        "questions": len(questions),
        "generated": len(before),
        "requestToProviderMs": _p(before),
        "providerFirstLineMs": _p(provider_line),
        "firstLineToFirstDeltaMs": _p(line_to_delta),
        "requestToFirstDeltaMs": _p(to_delta),
        "reviewMs": _p(review),
        "composedAnswerMs": _p(plain),
    }


def _p(seconds: Sequence[float]) -> dict[str, float] | None:
    if not seconds:
        return None
    ordered = sorted(seconds)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"p50": round(statistics.median(ordered) * 1000, 1), "p95": round(p95 * 1000, 1)}


if __name__ == "__main__":
    sys.exit(main())
