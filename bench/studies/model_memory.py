"""Does the embedding model's resident memory grow with the texts it is given (issue 39), and
does glibc's mmap threshold decide it? Each variant runs in a child process: the answering
side's model (traced, as `kgs serve` loads it, its vector cache off) embeds CALLS batches of new
texts of random lengths (1-MAX_WORDS words of the shipped knowledge base, batches of 1 to 16 as
questions and upload paragraphs come), and the child reports its VmRSS every REPORT_EVERY calls.

Variants (both with MALLOC_ARENA_MAX=2, as KGS_API_MALLOC_ARENAS gives `kgs serve`):
- glibc's default: the mmap threshold rises each time a large block is freed, so tensors of a
  new size come from the heap afterwards;
- a fixed threshold (MALLOC_MMAP_THRESHOLD_=131072): blocks above it are mapped and unmapped.

    PYTHONPATH=bench .venv/bin/python bench/studies/model_memory.py [--calls 400]
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import msgspec
from load_bench import ROOT

SEED = 1
MAX_WORDS = 120
BATCH_SIZES = (1, 1, 1, 2, 3, 5, 8, 16)
REPORT_EVERY = 50
MMAP_THRESHOLD_BYTES = 131_072
VARIANTS = {
    "glibc default": {"MALLOC_ARENA_MAX": "2"},
    "fixed mmap threshold": {"MALLOC_ARENA_MAX": "2",
                             "MALLOC_MMAP_THRESHOLD_": str(MMAP_THRESHOLD_BYTES)},
}  # fmt: skip


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def child(calls: int) -> None:
    from ingest.embeddings import SentenceTransformerEmbedder
    from service.settings import Settings

    settings = msgspec.structs.replace(Settings.from_env().embedding.for_queries(), cache_bytes=0)
    model = SentenceTransformerEmbedder(settings)
    model.embed(["warm-up"])
    words = " ".join(p.read_text() for p in sorted((ROOT / "knowledge_base").glob("*/*.md")))
    vocabulary = words.split()
    rng = random.Random(SEED)

    def text() -> str:
        start = rng.randrange(len(vocabulary) - MAX_WORDS)
        return " ".join(vocabulary[start : start + rng.randint(1, MAX_WORDS)])

    print(f"0 {rss_mib():.0f} 0", flush=True)
    started = time.monotonic()
    for call in range(1, calls + 1):
        model.embed([text() for _ in range(rng.choice(BATCH_SIZES))])
        if call % REPORT_EVERY == 0:
            print(f"{call} {rss_mib():.0f} {time.monotonic() - started:.1f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--calls", type=int, default=400)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.calls)
        return
    rows: dict[str, list[tuple[int, float, float]]] = {}
    for name, env in VARIANTS.items():
        done = subprocess.run(
            [sys.executable, __file__, "--child", "--calls", str(args.calls)],
            env={**os.environ, **env}, capture_output=True, text=True, check=True,
        )  # fmt: skip
        lines = [line.split() for line in done.stdout.splitlines() if line[:1].isdigit()]
        rows[name] = [(int(c), float(r), float(t)) for c, r, t in lines]
        print(f"{name}: done", flush=True)
    names = list(rows)
    print("\n| calls | " + " | ".join(f"{n}: RSS MiB" for n in names) + " |")
    print("|---" * (len(names) + 1) + "|")
    for index, (calls, _, _) in enumerate(rows[names[0]]):
        print(f"| {calls} | " + " | ".join(f"{rows[n][index][1]:.0f}" for n in names) + " |")
    for name in names:
        calls, last, elapsed = rows[name][-1]
        print(f"{name}: +{last - rows[name][0][1]:.0f} MiB over {calls} calls, {elapsed:.0f} s")


if __name__ == "__main__":
    main()
