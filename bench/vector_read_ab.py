"""What reading vectors through the model's property name costs: the exact dense channel
(cypher/retrieval/vector_paragraphs_exact) as shipped, `p[$property]`, against the same text with
the property written out (`p.embedding`), alternating, on one scope.

    .venv/bin/python bench/vector_read_ab.py [--scope bench-latency-10k] [--runs 200]
"""

from __future__ import annotations

import argparse
import json
import random
import time

from latency.report import summary

from service.db import open_graph
from service.settings import Settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--scope", default="bench-latency-10k")
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    graph, _, close = open_graph(Settings.from_env())
    try:
        shipped = graph.registry.get("retrieval/vector_paragraphs_exact").text
        written = shipped.replace("p[$property]", "p.embedding")
        assert written != shipped
        rng = random.Random(7)
        times: dict[str, list[float]] = {"property": [], "literal": []}
        for run in range(args.runs + 10):
            vector = [rng.gauss(0, 1) for _ in range(384)]
            order = [("property", shipped), ("literal", written)]
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
