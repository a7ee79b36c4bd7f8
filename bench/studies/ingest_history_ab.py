"""Ingest throughput with document history against the code before it: the same generated
corpus written into a fresh scope by each code version in turn, alternating.

    .venv/bin/python bench/studies/ingest_history_ab.py [--baseline b2b01b2] [--paragraphs 10000]
                                                [--rounds 2]

The baseline commit (default: the last one before versions) is checked out as a git worktree
under bench/out/; each run is a child process whose `service` and `ingest` packages come from
that worktree or from this checkout (PYTHONPATH goes before the editable install). Both write
the evidence-latency benchmark's generated documents (bench/latency/corpus.py) with the same
synthetic vectors, so the figure is the graph writes', not the model's. Each run starts from an
empty scope; the scope is deleted after it.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "out"
SCOPE = "bench-ingest-ab"


def child(paragraphs: int) -> None:
    """Runs in the child: write the corpus into SCOPE, print one JSON line, delete SCOPE."""
    sys.path.insert(0, str(ROOT / "bench"))
    from latency.corpus import (
        BASE_VECTORS,
        SCALES,
        SyntheticEmbedder,
        base_vectors,
        ensure_corpus,
        generate,
        parse_all,
        sentences,
        vocabulary,
    )

    from ingest.embeddings import SentenceTransformerEmbedder
    from ingest.units import embedding_input
    from service.db import open_graph
    from service.settings import Settings

    settings = Settings.from_env()
    pool = sentences()
    words = vocabulary(pool)
    corpus = generate(SCOPE, paragraphs, pool, words)
    base = generate(*SCALES["10k"], pool, words)
    texts: list[str] = []
    for parsed in parse_all(base, settings.ingest.max_paragraph_chars):
        texts += [embedding_input(parsed.knowledge_points[0].title, b)
                  for b in parsed.markdown.blocks]  # fmt: skip
    texts = texts[:BASE_VECTORS]
    embedder = SentenceTransformerEmbedder(settings.embedding)
    synthetic = SyntheticEmbedder(texts, base_vectors(texts, embedder), embedder.name)
    graph, _, close = open_graph(settings)
    try:
        done = ensure_corpus(graph, corpus, settings, lambda: synthetic)
        while graph.write("admin/delete_scope_batch", scope=SCOPE, limit=10_000).rows[0]["deleted"]:
            pass
    finally:
        close()
    print(json.dumps({"seconds": done["seconds"], "rate": done["paragraphsPerSecond"]}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--baseline", default="b2b01b2")
    parser.add_argument("--paragraphs", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.paragraphs)
        return
    tree = OUT / f"worktree-{args.baseline}"
    if not tree.exists():
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree),
                        args.baseline], check=True, capture_output=True)  # fmt: skip
    sides = {"before": str(tree), "versions": str(ROOT)}
    rates: dict[str, list[float]] = {side: [] for side in sides}
    for round_number in range(args.rounds):
        order = list(sides) if round_number % 2 == 0 else list(reversed(sides))
        for side in order:
            env = {**os.environ, "PYTHONPATH": sides[side], "HF_HUB_OFFLINE": "1",
                   "KGS_HOME": str(ROOT / ".kgs"),  # the one database, whichever code runs
                   "KGS_CYPHER_DIR": str(Path(sides[side]) / "cypher")}  # fmt: skip
            started = time.perf_counter()
            result = subprocess.run(
                [sys.executable, __file__, "--child", "--paragraphs", str(args.paragraphs)],
                env=env, capture_output=True, text=True, check=True,
            )  # fmt: skip
            figures = json.loads(result.stdout.strip().splitlines()[-1])
            rates[side].append(float(figures["rate"]))
            print(f"round {round_number + 1} {side:<9} {figures['rate']:>7.1f} paragraphs/s "
                  f"({time.perf_counter() - started:.0f} s with start-up)", flush=True)  # fmt: skip
    means = {side: sum(values) / len(values) for side, values in rates.items()}
    print(f"\nmean paragraphs/s: before {means['before']:.1f}, with versions "
          f"{means['versions']:.1f} ({means['versions'] / means['before']:.3f}x)")  # fmt: skip


if __name__ == "__main__":
    main()
