"""Document history's cost: the evidence path of a scope whose documents have three versions
each, side by side with the same documents in a history-free scope, and ingest throughput.

    .venv/bin/python bench/history_bench.py [--scale 100k] [--questions 200]

Corpus: the evidence-latency benchmark's generated documents (bench/latency/corpus.py), with
synthetic paragraph vectors. The history-free scope is that benchmark's own scope
(`bench-latency-100k`: one version per document). The history scope `bench-history-100k` holds
the very same documents under its own name, written three times through `ingest()`: edition A
(each document's first paragraph with a sentence added), edition B (another sentence), then the
original text. Its heads equal the history-free scope's documents, and each document has
versions 1, 2 and 3. Each pass's ingest figures are printed: pass 1 writes every paragraph, the
other two replace one paragraph per document (a new node with a new vector) and rewrite the rest.

Timing (warm, one client, sequential): every question is asked of both scopes, in alternating
order, through the evidence path (plan -> context pack, query embedding included; what
bench/evidence_latency.py calls "whole") and through `answer_question`. The questions are those
that bench generates for the history-free scope; the history scope's documents have the same
titles, so the same questions fit both.
"""

from __future__ import annotations

import argparse
import json
import os
import time
import zlib
from collections.abc import Callable

from latency import OUT
from latency.corpus import (
    SCALES,
    Corpus,
    SyntheticEmbedder,
    ensure_corpus,
    generate,
    sentences,
    synthetic_embedder,
    vocabulary,
)
from latency.questions import make_questions
from latency.report import summary
from latency.timing import evidence_path

from ingest.embeddings import SentenceTransformerEmbedder
from service.api.process import freeze_startup_objects
from service.db import open_graph
from service.db.graph import Graph
from service.pipeline.plan import plan_query
from service.question.runner import answer_question, stage_settings
from service.settings import PipelineSettings, Settings

EDITIONS = ("A", "B", None)  # None: the original text, the head
WARMUP = 20


def edition(corpus: Corpus, scope: str, label: str | None) -> Corpus:
    """The corpus under `scope`, each document's first paragraph extended (label None: as is)."""
    documents = []
    for path, source in corpus.documents:
        name = path.split("/", 1)[1]
        if label is not None:
            head, _, body = source.partition("\n# ")
            title, _, rest = body.partition("\n\n")
            first, _, tail = rest.partition("\n\n")
            source = f"{head}\n# {title}\n\n{first} This is edition {label}.\n\n{tail}"
        documents.append((f"{scope}/{name}", source))
    return Corpus(scope, documents, corpus.titles, corpus.paragraphs)


def version_counts(graph: Graph, scope: str) -> dict[str, int]:
    rows = graph.read_text(
        "MATCH (d:Document {scope: $scope}) "
        "RETURN count(d) AS documents, sum(COUNT { (d)-[:HAS_VERSION]->() }) AS versions, "
        "min(d.version) AS lowestHead",
        {"scope": scope},
    )
    return {k: int(v or 0) for k, v in rows[0].items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--scale", default="100k", choices=[s for s in SCALES if s != "1m"])
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--top-k", type=int, default=10)
    parser.add_argument("--corpus-only", action="store_true", help="write both scopes and stop")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    settings = Settings.from_env()
    baseline_scope, paragraphs = SCALES[args.scale]
    history_scope = f"bench-history-{args.scale}"
    pool = sentences()
    words = vocabulary(pool)
    corpus = generate(baseline_scope, paragraphs, pool, words)
    base_corpus = generate(*SCALES["10k"], pool, words)
    graph, _, close = open_graph(settings)
    figures: dict[str, object] = {"date": time.strftime("%Y-%m-%d %H:%M"), "scale": args.scale}
    try:
        embedder = SentenceTransformerEmbedder(settings.embedding.for_queries())
        embedder.embed(["warm the model"])
        synthetic = synthetic_embedder(embedder, base_corpus, settings.ingest.max_paragraph_chars)

        def make_synthetic() -> SyntheticEmbedder:
            return synthetic

        print("corpus:", flush=True)
        figures["baseline"] = ensure_corpus(graph, corpus, settings, make_synthetic)
        counts = version_counts(graph, history_scope)
        # Passes every document went through (a document's head version counts its writes): an
        # interrupted run goes on from the first pass some document lacks, so each document
        # ends with exactly one version per edition.
        done_passes = counts["lowestHead"] if counts["documents"] == len(corpus.documents) else 0
        passes = []
        for label in EDITIONS[done_passes:]:
            done = ensure_corpus(graph, edition(corpus, history_scope, label), settings,
                                 make_synthetic)  # fmt: skip
            passes.append({"edition": label or "original", **done})
        figures["historyPasses"] = passes
        figures["baselineVersions"] = version_counts(graph, baseline_scope)
        figures["historyVersions"] = version_counts(graph, history_scope)
        print(json.dumps({k: figures[k] for k in ("baselineVersions", "historyVersions")}),
              flush=True)  # fmt: skip
        if args.corpus_only:
            print(json.dumps(passes, indent=1), flush=True)
            return

        freeze_startup_objects(settings.api.gc_young_threshold)
        pipeline = PipelineSettings()

        def whole(question: str, scope: str) -> float:
            started = time.perf_counter()
            evidence_path(graph, embedder, question, scope, pipeline, args.top_k)
            return (time.perf_counter() - started) * 1000

        def answer(question: str, scope: str) -> float:
            started = time.perf_counter()
            answer_question(
                graph, embedder, question, scope=scope, top_k=args.top_k, **stage_settings(settings)
            )
            return (time.perf_counter() - started) * 1000

        seed = zlib.crc32(baseline_scope.encode())
        questions = [q for _, q in make_questions(corpus.titles, words, pool, args.questions,
                                                  seed)]  # fmt: skip
        warmup = [q for _, q in make_questions(corpus.titles, words, pool, WARMUP, seed + 1)]
        times: dict[str, list[float]] = {f"{m}/{s}": [] for m in ("whole", "answer")
                                         for s in ("baseline", "history")}  # fmt: skip
        scopes = {"baseline": baseline_scope, "history": history_scope}
        measures: dict[str, Callable[[str, str], float]] = {"whole": whole, "answer": answer}
        for number, question in enumerate([*warmup, *questions]):
            order = ["baseline", "history"] if number % 2 == 0 else ["history", "baseline"]
            for name, measure in measures.items():
                for side in order:
                    embedder.forget([plan_query(question, scopes[side]).query])
                    elapsed = measure(question, scopes[side])
                    if number >= len(warmup):
                        times[f"{name}/{side}"].append(elapsed)
            if (number + 1) % 50 == 0:
                print(f"  {number + 1}/{len(warmup) + len(questions)} questions", flush=True)
    finally:
        close()

    table = {key: summary(values) for key, values in times.items()}
    figures["latencyMs"] = table
    for name in measures:
        base, hist = table[f"{name}/baseline"], table[f"{name}/history"]
        figures[f"{name}Ratio"] = {q: round(hist[q] / base[q], 3) for q in ("p50", "p95")}
    OUT.mkdir(parents=True, exist_ok=True)
    out = OUT / f"history-{args.scale}.json"
    out.write_text(json.dumps(figures, indent=1))
    print(f"\n{'measure':<16}{'p50 ms':>10}{'p95 ms':>10}")
    for key, row in table.items():
        print(f"{key:<16}{row['p50']:>10.1f}{row['p95']:>10.1f}")
    for name in measures:
        ratio = figures[f"{name}Ratio"]
        print(f"{name}: history / history-free p50 {ratio['p50']}, p95 {ratio['p95']}")  # type: ignore[index]
    for done in passes:
        print(f"pass {done['edition']}: {done['paragraphsPerSecond']} paragraphs/s written, "
              f"{done['seconds']} s")  # fmt: skip
    print(f"figures in {out}")


if __name__ == "__main__":
    main()
