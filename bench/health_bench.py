"""The health report of a large scope: how long each section's first page takes, and paging
through every contradiction, at 100,000 paragraphs by default.

    .venv/bin/python bench/health_bench.py [--paragraphs 100000] [--conflicts 200] [--rounds 3]

Generates Markdown documents of 25 paragraphs (sentences of the shipped knowledge base
recombined), plants `--conflicts` subjects stated with two values on two pages, the same two
pages sharing one paragraph word for word (a near duplicate), and ingests them through the
project's own `ingest()` into the scope `bench-health` without embeddings (the report reads no
vector). A scope already holding the corpus is kept: ingest skips unchanged pages. Then it
times, `--rounds` times each, `health_report` (every section's first page) and each section
alone, and pages through all contradictions with the default page size. Prints one table.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from latency.corpus import sentences, vocabulary

from ingest.pipeline import IngestOptions, ingest
from service.db import graph_session
from service.health import SECTIONS, health_report, health_section
from service.settings import Settings, project_root

SCOPE = "bench-health"
OUT = project_root() / "bench" / "out" / "health-corpus"
PARAGRAPHS_PER_DOCUMENT = 25


def generate(paragraphs: int, conflicts: int) -> Path:
    """The corpus under OUT/SCOPE, written anew (ingest skips the pages that did not change)."""
    folder = OUT / SCOPE
    documents = paragraphs // PARAGRAPHS_PER_DOCUMENT
    shutil.rmtree(OUT, ignore_errors=True)
    folder.mkdir(parents=True)
    rng = random.Random(zlib.crc32(SCOPE.encode()))
    pool = sentences()
    names = vocabulary(pool)  # one subject name per planted pair
    assert len(names) >= conflicts, f"at most {len(names)} planted subjects"
    for i in range(documents):
        body = [
            " ".join(rng.sample(pool, rng.randint(2, 4))) for _ in range(PARAGRAPHS_PER_DOCUMENT)
        ]
        if i < 2 * conflicts:  # pages 2k and 2k+1: subject k with two values, one shared paragraph
            body[3] = f"The {names[i // 2]} gateway port is {8000 + i}."
            body[5] = " ".join(random.Random(i // 2).sample(pool, 4))
        (folder / f"page-{i:05}.md").write_text(
            f"# Page {i}\n\n" + "\n\n".join(body) + "\n", encoding="utf-8"
        )
    return OUT


def timed(call: Callable[[], Any], rounds: int) -> tuple[float, Any]:
    """Median seconds of `rounds` calls, and the last result."""
    times, result = [], None
    for _ in range(rounds):
        started = time.perf_counter()
        result = call()
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--paragraphs", type=int, default=100_000)
    parser.add_argument("--conflicts", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    settings = Settings.from_env()
    root = generate(args.paragraphs, args.conflicts)
    with graph_session(settings) as graph:
        started = time.perf_counter()
        report = ingest(graph, None, root, IngestOptions(), settings.ingest)
        print(f"ingest: {len(report.added) + len(report.updated)} written, "
              f"{len(report.unchanged)} unchanged, {time.perf_counter() - started:.0f} s",
              flush=True)  # fmt: skip
        facts = graph.read_text("MATCH (f:Fact {scope: $scope}) RETURN count(f) AS n",
                                {"scope": SCOPE})[0]["n"]  # fmt: skip
        rows: list[tuple[str, str]] = [
            ("scope", f"{args.paragraphs:,} paragraphs, {facts:,} facts")
        ]
        whole, first = timed(lambda: health_report(graph, SCOPE, settings.health), args.rounds)
        rows.append(("health_report (every first page)", f"{whole * 1000:,.0f} ms"))
        for section in SECTIONS:
            spent, page = timed(
                lambda s=section: health_section(graph, SCOPE, s, settings.health), args.rounds
            )
            more = " (more pages)" if page.next_after else ""
            rows.append((f"  {section}", f"{spent * 1000:,.0f} ms, {len(page.items)} found{more}"))

        def every_contradiction() -> int:
            found, after = 0, None
            while True:
                page = health_section(graph, SCOPE, "contradictions", settings.health, after=after)
                found += len(page.items)
                if page.next_after is None:
                    return found
                after = page.next_after

        spent, found = timed(every_contradiction, 1)
        rows.append(("every contradiction, page by page", f"{spent * 1000:,.0f} ms, {found} found"))
        assert found >= args.conflicts, "each planted subject must be found"
        assert first.contradictions.items, "the first page lists contradictions"
    width = max(len(r[0]) for r in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")


if __name__ == "__main__":
    main()
