"""Ingestion benchmark: embedding-only throughput vs end-to-end ingestion, unchanged re-ingest,
peak RSS of the ingest process.

    .venv/bin/python bench/ingest_bench.py [--documents 2000] [--paragraphs 25]

Generates a deterministic corpus (sentences of the shipped knowledge base recombined, with
headings, tables, code, Mermaid, front-matter relations and links) under bench/out/, ingests it
with `kgs ingest` in a child process into the scope `bench-ingest` of the configured Neo4j, and
prints one table. The scope is deleted first, so every run starts cold for the graph.
"""

from __future__ import annotations

import argparse
import random
import re
import resource
import shutil
import subprocess
import sys
import time

from ingest.embeddings import SentenceTransformerEmbedder
from ingest.markdown import parse_markdown
from ingest.units import embedding_input
from service.db import graph_session
from service.settings import Settings, project_root

SCOPE = "bench-ingest"
OUT = project_root() / "bench" / "out" / "ingest-corpus"
EMBED_SAMPLE = 3000  # paragraphs timed for the embedding-only figure
_DELETE_BATCH = 10_000


def sentences() -> list[str]:
    """Prose sentences of the shipped general corpus (our own text)."""
    found: list[str] = []
    for file in sorted((project_root() / "knowledge_base").glob("*/*.md")):
        if file.parent.name == "promptinjection":  # attack pages, not prose: fake tags, fences
            continue
        for block in parse_markdown(file.read_text(encoding="utf-8")).blocks:
            if block.kind == "paragraph":
                text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", block.text)  # links would dangle
                found.extend(s for s in re.split(r"(?<=[.!?])\s+", text) if len(s) > 40)
    return found


def generate(documents: int, paragraphs: int, seed: int = 7) -> int:
    rng = random.Random(seed)
    pool = sentences()
    shutil.rmtree(OUT, ignore_errors=True)
    folder = OUT / SCOPE
    folder.mkdir(parents=True)
    total = 0
    for i in range(documents):
        lines = [
            "---",
            f"title: Bench topic {i}",
            f"aliases: [topic {i}, bench {i}]",
            "relations:",
            f"  - {{type: PRECEDES, target: doc-{(i + 1) % documents:05}, confidence: 0.8}}",
            f"  - {{type: CONTRASTS_WITH, target: doc-{rng.randrange(documents):05}, "
            "confidence: 0.6}",
            "---",
            f"# Bench topic {i}",
            "",
        ]
        for j in range(paragraphs):
            if j % 5 == 0:
                lines += [f"## Section {j // 5}", ""]
            kind = j % 12
            if kind == 7:
                lines += ["| key | value |", "|---|---|", f"| topic | {i} |", f"| part | {j} |", ""]
            elif kind == 11:
                lines += ["```python", f"def topic_{i}_{j}():", f"    return {j}", "```", ""]
            else:
                text = " ".join(rng.sample(pool, rng.randint(2, 4)))
                if j == 3:
                    text += f" See [the next topic](doc-{(i + 1) % documents:05}.md)."
                lines += [text, ""]
            total += 1
        (folder / f"doc-{i:05}.md").write_text("\n".join(lines), encoding="utf-8")
    return total


def embedding_only(settings: Settings) -> float:
    """Paragraphs per second of the model alone on the corpus's own embedding inputs."""
    texts: list[str] = []
    for file in sorted((OUT / SCOPE).glob("*.md")):
        doc = parse_markdown(file.read_text(encoding="utf-8"))
        texts += [embedding_input(doc.title or "", b) for b in doc.blocks]
        if len(texts) >= EMBED_SAMPLE:
            break
    texts = texts[:EMBED_SAMPLE]
    embedder = SentenceTransformerEmbedder(settings.embedding)
    embedder.embed(texts[:64])  # load and warm up
    started = time.perf_counter()
    embedder.embed(texts)
    return len(texts) / (time.perf_counter() - started)


def run_ingest() -> tuple[float, int, str]:
    """Seconds, peak RSS (KiB) and the summary of one `kgs ingest` child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "service.cli", "ingest", str(OUT), "--no-progress"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    elapsed = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return elapsed, max(peak, before), result.stdout


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--documents", type=int, default=2000)
    parser.add_argument("--paragraphs", type=int, default=25)
    args = parser.parse_args()
    settings = Settings.from_env()

    paragraphs = generate(args.documents, args.paragraphs)
    print(f"corpus: {args.documents} documents, {paragraphs} paragraphs in {OUT}", flush=True)
    with graph_session(settings) as graph:
        deleted = None
        while deleted != 0:
            result = graph.write("admin/delete_scope_batch", scope=SCOPE, limit=_DELETE_BATCH)
            deleted = result.rows[0]["deleted"]
    model_rate = embedding_only(settings)
    print(f"embedding only: {model_rate:.1f} paragraphs/s", flush=True)
    first_s, rss_kib, summary = run_ingest()
    print(summary, flush=True)
    second_s, rss2_kib, summary2 = run_ingest()
    print(summary2, flush=True)
    rate = paragraphs / first_s
    rows = [
        ("corpus", f"{args.documents} documents, {paragraphs} paragraphs"),
        ("embedding-only throughput", f"{model_rate:.1f} paragraphs/s"),
        ("end-to-end ingest", f"{first_s:.1f} s = {rate:.1f} paragraphs/s "
                              f"({100 * rate / model_rate:.0f}% of embedding-only; target >= 75%)"),
        ("unchanged re-ingest", f"{second_s:.1f} s "
                                f"({first_s / second_s:.0f}x faster; target >= 20x)"),
        ("peak RSS of ingest process", f"{max(rss_kib, rss2_kib) / 1024:.0f} MiB (target <= 2048)"),
    ]  # fmt: skip
    width = max(len(name) for name, _ in rows)
    print()
    for name, value in rows:
        print(f"{name:<{width}}  {value}")


if __name__ == "__main__":
    main()
