"""Where an answering process's memory goes (issue 39): the app in this process with its own
model (answers in its threads, as with KGS_API_ANSWER_PROCESSES=0, so one process holds every
owner), WARMUP questions, then QUESTIONS new ones (bench/soak.py's generator over the shipped
scopes) through POST /v1/query, with an upload to scope SCOPE every UPLOAD_EVERY questions (the
soak's share) and the previous upload deleted. Reports, after the warm-up and at the end:

- what each owner holds, as text_cache.approximate_size counts it: the paragraph text caches
  (service/text/text_cache.py, their own estimate), the traces held for GET /v1/traces
  (service/api/trace_store.py), the question vectors (the embedder's cache) and the knowledge
  point names (service/pipeline/name_cache.py);
- tracemalloc's growth between the two points by file (one frame: the line that allocated);
- what each cache of the `function` kind (FUNCTION_CACHES) holds at the end: its entries, their
  estimated bytes (what the kind's budget counts) and the traced bytes its clearing frees;
- the process's RSS.

    PYTHONPATH=bench .venv/bin/python bench/studies/memory_by_owner.py [--questions 300]

Needs the shipped knowledge base in the configured Neo4j (make run once). Answer records are
written as a served process writes them.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import os
import random
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

from faults.knowledge_base import sentences
from litestar.testing import TestClient
from load_bench import ROOT, SCOPES
from soak import MIB, SEED, Questions, status_mib, upload_source

from service.api import create_app
from service.api.state import AppResources
from service.db import open_graph
from service.pipeline import name_cache
from service.settings import Settings
from service.text import text_cache

# The pure functions of short texts, cached in text_cache's `function` kind.
FUNCTION_CACHES = (
    ("service.text.language", "language_of"), ("service.text.relation_labels", "compact_key"),
    ("service.answer.sentences", "public_text"), ("service.answer.sentences", "_label"),
    ("service.answer.injection.rules", "_strong"),
    ("service.answer.injection.finding", "find_injections"),
    ("service.answer.injection.screening", "_scan"),
    ("service.answer.injection.screening", "_output_pattern"),
    ("service.text.answer_types", "expected_type"),
    ("service.text.facts.aligned", "norm_token"),
)  # fmt: skip
WARMUP = 20
UPLOAD_EVERY = 6
SCOPE = "memory-study"
PAGE_SIZE = 200
TOP_FILES = 15
TRACE_FRAMES = 1


def owners(resources: AppResources) -> dict[str, dict[str, float]]:
    """Bytes and entries of each owner, as approximate_size counts them."""
    held: dict[str, dict[str, float]] = {}
    for stats in text_cache.cache_stats():
        held[f"text cache: {stats.kind}"] = {"bytes": stats.bytes, "entries": stats.entries}
    traces = list(resources.traces._items.values())
    held["traces held"] = {"bytes": sum(text_cache.approximate_size(t) for _, t, _ in traces),
                           "entries": len(traces)}  # fmt: skip
    vectors: dict[str, Any] = {}
    for model in getattr(resources.embedder, "_models", {}).values():  # a ModelRoster's models
        vectors.update(getattr(model, "_cache", {}))
    held["question vectors"] = {
        "bytes": sum(sys.getsizeof(k) + sys.getsizeof(v) + v.itemsize * len(v)
                     for k, v in vectors.items()),
        "entries": len(vectors),
    }  # fmt: skip
    names = [entry for scopes in list(name_cache._CACHE.values()) for entry in scopes.values()]
    held["knowledge point names"] = {
        "bytes": sum(text_cache.approximate_size(n) for n in names),
        "entries": len(names),
    }
    return held


def function_caches() -> dict[str, dict[str, float]]:
    """What each function cache holds: entries, estimated bytes, and the traced bytes its
    cache_clear frees (a key also held elsewhere frees nothing). Needs tracemalloc on; empties
    the caches."""
    held: dict[str, dict[str, float]] = {}
    for module, name in FUNCTION_CACHES:
        function = getattr(importlib.import_module(module), name)
        entries, estimated = function.cache_held()
        gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        function.cache_clear()
        gc.collect()
        held[f"{module}.{name}"] = {
            "entries": entries,
            "estimated_bytes": estimated,
            "bytes": before - tracemalloc.get_traced_memory()[0],
        }
    return held


def replace_upload(
    client: TestClient[Any], uploaded: list[str], pool: list[str], rng: random.Random
) -> None:
    """A new document in SCOPE, as the soak uploads them; the previous one deleted."""
    marker = f"ms{len(uploaded):05d}"
    _, source = upload_source(marker, pool, rng)
    file = (f"{marker}.md", source.encode(), "text/markdown")
    added = client.post("/v1/documents", files={"file": file},
                        data={"scope": SCOPE, "path": f"{marker}.md"})  # fmt: skip
    if added.status_code not in (200, 201):  # 200: left by an earlier run, unchanged
        raise SystemExit(f"upload {added.status_code}: {added.text[:300]}")
    if uploaded:
        client.delete(f"/v1/documents/{uploaded[-1]}")
    uploaded.append(added.json()["documentId"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--questions", type=int, default=300)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "memory_by_owner.json")
    args = parser.parse_args()
    settings = Settings.from_env({**os.environ, "KGS_API_DEV_MODE": "on",
                                  "KGS_API_RATE_LIMIT_REQUESTS": "0"})  # fmt: skip
    graph, _, close = open_graph(settings, purpose="memory study")
    resources = AppResources(settings, graph=graph)  # its own model, answers in its threads
    pid = os.getpid()
    try:
        with TestClient(create_app(settings, resources), timeout=120) as client:
            titles: list[tuple[str, str]] = []
            for scope in SCOPES:
                page = client.get("/v1/documents", params={"scope": scope, "limit": PAGE_SIZE})
                titles += [(scope, i["title"]) for i in page.json()["items"] if i.get("title")]
            questions = Questions(titles, [])
            pool, rng, uploaded = sentences(), random.Random(SEED), list[str]()

            def ask(count: int) -> None:
                for number in range(count):
                    scope, question = questions.new()
                    response = client.post("/v1/query", json={"query": question, "scope": scope})
                    if response.status_code != 200:
                        raise SystemExit(f"{response.status_code}: {response.text[:300]}")
                    if number % UPLOAD_EVERY == 0:
                        replace_upload(client, uploaded, pool, rng)

            ask(WARMUP)
            gc.collect()
            tracemalloc.start(TRACE_FRAMES)
            start = tracemalloc.take_snapshot()
            before, rss_before = owners(resources), status_mib(pid, "VmRSS")
            started = time.monotonic()
            ask(args.questions)
            elapsed = time.monotonic() - started
            gc.collect()
            end = tracemalloc.take_snapshot()
            after, rss_after = owners(resources), status_mib(pid, "VmRSS")
            traced_now, traced_peak = tracemalloc.get_traced_memory()
            functions = function_caches()
            tracemalloc.stop()
            if uploaded:
                client.delete(f"/v1/documents/{uploaded[-1]}")
    finally:
        resources.close()
        close()
    growth = end.compare_to(start, "filename")
    print(f"{args.questions} questions in {elapsed:.0f} s after {WARMUP} (tracemalloc on)\n")
    print("| owner | entries after warm-up | MiB after warm-up | entries at end | MiB at end |")
    print("|---|---|---|---|---|")
    for name, held in after.items():
        first = before[name]
        print(f"| {name} | {first['entries']:.0f} | {first['bytes'] / MIB:.1f} | "
              f"{held['entries']:.0f} | {held['bytes'] / MIB:.1f} |")  # fmt: skip
    print("\n| function cache | entries at end | MiB estimated | MiB it alone holds |")
    print("|---|---|---|---|")
    for name, held in sorted(functions.items(), key=lambda kv: -kv[1]["bytes"]):
        print(f"| {name} | {held['entries']:.0f} | {held['estimated_bytes'] / MIB:.2f} | "
              f"{held['bytes'] / MIB:.2f} |")  # fmt: skip
    traced_growth = sum(s.size_diff for s in growth)
    print(f"\ntracemalloc: {traced_growth / MIB:+.1f} MiB still allocated since the warm-up "
          f"({traced_now / MIB:.1f} MiB traced, peak {traced_peak / MIB:.1f}); RSS "
          f"{rss_before:.0f} -> {rss_after:.0f} MiB ({rss_after - rss_before:+.0f})\n")  # fmt: skip
    print("| file (allocating line's) | MiB grown | blocks grown |")
    print("|---|---|---|")
    root = str(ROOT) + "/"
    for stat in growth[:TOP_FILES]:
        name = stat.traceback[0].filename.replace(root, "")
        name = name.split("site-packages/")[-1]
        print(f"| {name} | {stat.size_diff / MIB:+.2f} | {stat.count_diff:+d} |")
    summary: dict[str, Any] = {
        "questions": args.questions, "warmup": WARMUP, "elapsed_s": elapsed,
        "owners_after_warmup": before, "owners_at_end": after,
        "traced_growth_bytes": traced_growth, "rss_before_mib": rss_before,
        "rss_after_mib": rss_after, "function_caches": functions,
        "files": [{"file": s.traceback[0].filename, "size_diff": s.size_diff,
                   "count_diff": s.count_diff} for s in growth[:TOP_FILES]],
    }  # fmt: skip
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(summary, indent=2) + "\n")
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
