"""Why statements that read vectors name the model's property in their text: the exact dense
channel (cypher/retrieval/vector_paragraphs_exact) as it runs, the property written out
(`p.embedding`), against the same text reading it by name (`p[$property]`), alternating, on one
scope.

    PYTHONPATH=bench .venv/bin/python bench/studies/vector_read_ab.py \
        [--scope bench-latency-10k] [--runs 200]
"""

from __future__ import annotations

import argparse
import json
import random
import time

from latency.report import summary

from service.db import open_graph
from service.db.cypher_registry import with_vector_property
from service.settings import Settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--scope", default="bench-latency-10k")
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    graph, _, close = open_graph(Settings.from_env())
    try:
        stmt = graph.registry.get("retrieval/vector_paragraphs_exact")
        written = with_vector_property(stmt, {"property": "embedding"}).text
        by_name = stmt.text.replace("p.VectorProperty", "p[$property]")
        assert "p.embedding" in written and "p[$property]" in by_name
        rng = random.Random(7)
        times: dict[str, list[float]] = {"byName": [], "written": []}
        for run in range(args.runs + 10):
            vector = [rng.gauss(0, 1) for _ in range(384)]
            order = [("byName", by_name), ("written", written)]
            for name, text in order if run % 2 else reversed(order):
                params = {"scope": args.scope, "vector": vector, "limit": 40,
                          "property": "embedding"}  # fmt: skip
                started = time.perf_counter()
                rows = graph.read_text(text, params)
                if run >= 10:  # warm-up
                    times[name].append((time.perf_counter() - started) * 1000)
                assert rows, "the scope has no embedded paragraph"
        print(json.dumps({"scope": args.scope, "runs": args.runs,
                          **{k: summary(v) for k, v in times.items()}}, indent=1))  # fmt: skip
    finally:
        close()


if __name__ == "__main__":
    main()
