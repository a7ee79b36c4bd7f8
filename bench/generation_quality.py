"""Answer quality with and without LLM generation, on the public ClapNQ and S10 sets.

    .venv/bin/python bench/generation_quality.py --base-url URL [--model M] [--api-key K]
        [--sets clapnq,s10-plain] [--limit N] [--skip-ingest] [--timeout-s S]
    .venv/bin/python bench/generation_quality.py --local [--limit N]   # llama.cpp + Gemma 3 270M

Any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp's server) can be measured;
`--local` starts the small model the tests use (tests/local_llm.py), which is no quality bar.
The knowledge bases are bench/public_sets.py's plain layouts (scopes pub-clapnq and
pub-s10-plain, ingested unless --skip-ingest). Every question is answered twice, in process
as `kgs ask` answers it: composed (no generation), then with `generate` against the endpoint.

Printed per set and mode, over the answerable questions:
- answer F1: token F1 against the gold answers (an abstention scores 0), and over the answered;
- cited gold: the share of questions with a gold document among whose citations one is cited;
And for generation:
- used: the share of answered questions whose published answer is the generated one;
- fallback: the share whose generation failed (the composed answer given), by reason;
- removed: the share of written lines dropped, by the line checks or by the release review;
- p50 latency of both modes.

No parameter is chosen here; every question counts (there is no fit half).
Data licences: see bench/public_sets.py.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

import msgspec
from public_sets import KB, OUT, TOP_K, clapnq_set, s10_sets, write_scope

from ingest.embeddings import SentenceTransformerEmbedder
from ingest.pipeline import IngestOptions, ingest
from service.answer.generation import generation_client
from service.db import graph_session
from service.evaluation import EvalQuestion, token_f1
from service.question.runner import answer_question, stage_settings
from service.settings import LlmSettings, Settings, project_root

SETS = ("clapnq", "s10-plain")
RESULTS = OUT / "generation_quality.json"
LOCAL_MODEL = "gemma-3-270m-q4_k_m"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--eval-dir", default=str(project_root().parent / "shared" / "eval"))
    parser.add_argument("--base-url", help="the OpenAI-compatible endpoint (…/v1)")
    parser.add_argument("--local", action="store_true", help="start llama.cpp + Gemma 3 270M")
    parser.add_argument("--model", help="the model name sent (default with --local: its file)")
    parser.add_argument("--api-key")
    parser.add_argument("--timeout-s", type=float, default=120.0)
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--limit", type=int, help="the first N questions of each set")
    parser.add_argument("--skip-ingest", action="store_true")
    args = parser.parse_args(argv)
    if bool(args.base_url) == args.local:
        parser.error("give --base-url or --local")
    if args.model is None:
        args.model = LOCAL_MODEL if args.local else parser.error("--base-url needs --model")
    eval_dir = Path(args.eval_dir)
    sets = [s for s in (clapnq_set(eval_dir), *s10_sets(eval_dir)) if s.name in args.sets]
    settings = Settings.from_env()
    generation = msgspec.structs.replace(settings.generation, timeout_s=args.timeout_s)
    embedder = SentenceTransformerEmbedder(settings.embedding)
    results: dict[str, Any] = {}
    stages = {**stage_settings(settings), "generation_settings": generation}
    with _endpoint(args) as base_url, graph_session(settings) as graph:
        llm = LlmSettings(base_url=base_url, model=args.model, api_key=args.api_key)
        client = generation_client(llm, generation)
        assert client is not None
        for public in sets:
            if not args.skip_ingest:
                write_scope(public)
                ingest(graph, embedder, KB / public.scope,
                       IngestOptions(scope=public.scope, prune=True), settings.ingest)  # fmt: skip
            questions = [q for q in public.questions if q.answerable]
            questions = questions[: args.limit] if args.limit else questions
            ask = partial(answer_question, graph, embedder, scope=public.scope, top_k=TOP_K,
                          llm=False, **stages)  # fmt: skip
            rows = list(_rows(questions, ask, client))
            results[public.name] = table = _table(rows)
            print(f"\n{public.name}: {len(rows)} answerable questions, model {args.model}")
            print(json.dumps(table, indent=1))
            sys.stdout.flush()
        client.close()
    RESULTS.write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


def _rows(
    questions: Sequence[EvalQuestion], ask: Callable[..., dict[str, Any]], client: Any
) -> Iterator[dict[str, Any]]:
    for q in questions:
        row: dict[str, Any] = {"id": q.id}
        for mode, generator in (("composed", None), ("generated", client)):
            started = time.perf_counter()
            response = ask(q.question, generator=generator)
            row[mode] = {
                "ms": (time.perf_counter() - started) * 1000,
                "status": response["status"],
                "f1": 0.0 if response["status"] == "abstained"
                else token_f1(response["answer"], q.answers),
                "citedGold": bool({c["path"] for c in response["citations"]} & set(q.gold)),
                "generation": response["trace"].get("generation"),
            }  # fmt: skip
        yield row


def _table(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    table: dict[str, Any] = {}
    for mode in ("composed", "generated"):
        done = [r[mode] for r in rows]
        answered = [d for d in done if d["status"] != "abstained"]
        table[mode] = {
            "answerF1": _mean([d["f1"] for d in done]),
            "answerF1Answered": _mean([d["f1"] for d in answered]),
            "citedGold": _mean([float(d["citedGold"]) for d in done]),
            "p50Ms": round(statistics.median(d["ms"] for d in done), 1) if done else None,
        }
    runs = [r["generated"]["generation"] for r in rows if r["generated"]["generation"]]
    asked = [g for g in runs if g.get("reason") != "abstained"]
    written = sum(int(g.get("linesWritten", 0)) for g in asked)
    dropped = sum(len(g.get("rejected", ())) + int(g.get("removedByReview", 0)) for g in asked)
    table["generation"] = {
        "asked": len(asked),
        "used": _mean([float(g["used"]) for g in asked]),
        "fallback": _mean([float(not g["used"]) for g in asked]),
        "fallbackReasons": dict(Counter(str(g["reason"]) for g in asked if not g["used"])),
        "linesWritten": written,
        "removedShare": round(dropped / written, 3) if written else None,
    }
    return table


def _mean(values: Sequence[float]) -> float | None:
    return round(statistics.fmean(values), 3) if values else None


@contextmanager
def _endpoint(args: argparse.Namespace) -> Iterator[str]:
    if args.base_url:
        yield args.base_url
        return
    sys.path.insert(0, str(project_root()))
    from tests.local_llm import local_llm

    with local_llm() as (base_url, _):
        yield base_url


if __name__ == "__main__":
    sys.exit(main())
