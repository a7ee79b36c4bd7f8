"""The printed report: per scope and measure p50, p95 and mean, the targets, the retrievals after
the embedding, our stages and Cypher statements, growth between scales, sanity and machine."""

from __future__ import annotations

import statistics
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from latency.timing import MEASURES, WARMUP_QUESTIONS, ScaleResult

MEASURE_NAMES = {
    "whole": "ours: whole evidence path",
    "answer": "ours: whole answer path",
    "retrieval": "ours: retrieval stage (+embedding)",
    "embedding": "ours: query embedding alone",
    "graphrag": "neo4j-graphrag HybridRetriever",
    "retrieval_given": "ours: retrieval stage, vector given",
    "graphrag_given": "HybridRetriever, vector given",
    "graphrag_cypher": "HybridCypherRetriever + graph context",
}
TARGET_WHOLE_VS_GRAPH_PEER_P95 = 1.0  # against HybridCypherRetriever with graph context
TARGET_RETRIEVAL_VS_GRAPHRAG_P95 = 1.0  # against HybridRetriever, with and without embedding
TARGET_WHOLE_P50_MS = 60.0
TARGET_WHOLE_P95_1M_MS = 120.0  # at a million paragraphs


def pct(values: Sequence[float], q: float) -> float:
    """Percentile with linear interpolation (numpy's default)."""
    return float(np.percentile(np.asarray(values, dtype=float), q)) if values else float("nan")


def summary(values: Sequence[float]) -> dict[str, float]:
    return {
        "p50": round(pct(values, 50), 2),
        "p95": round(pct(values, 95), 2),
        "mean": round(statistics.fmean(values), 2) if values else float("nan"),
        "n": len(values),
    }


def table(rows: Sequence[Sequence[str]], header: Sequence[str], left: int = 1) -> Iterator[str]:
    """Plain-text table: the first `left` columns left-aligned, the (numeric) rest right."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(
            f"{c:<{w}}" if i < left else f"{c:>{w}}"
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    yield line(header)
    yield "  ".join("-" * w for w in widths)
    yield from (line(row) for row in rows)


def report(results: Sequence[ScaleResult], meta: dict[str, Any]) -> list[str]:
    lines = [
        f"evidence-path latency, {meta['date']}, {meta['cores']} cores, Neo4j "
        f"{meta['neo4jVersion']}, top-k {meta['topK']}, {meta['questions']} questions per "
        f"scope after {WARMUP_QUESTIONS} warm-up questions, one client, sequential, torch "
        f"threads {meta['embeddingThreads']}, text caches {meta['textCaches']}; newest code "
        f"file {meta['codeNewest']}",
        f"neo4j-graphrag: {meta['graphragMode']}; HybridRetriever has NO scope filter: it "
        f"searches the whole indexes ({meta['indexedParagraphs']:,} paragraphs of every scope "
        "in this database), ours searches only the named scope",
        "",
    ]
    rows = []
    for r in results:
        for m in MEASURES:
            s = summary(r.times[m])
            rows.append([f"{r.scale} ({r.paragraphs:,})", MEASURE_NAMES[m],
                         f"{s['p50']:.1f}", f"{s['p95']:.1f}", f"{s['mean']:.1f}"])  # fmt: skip
    lines += table(rows, ["scope", "measure", "p50 ms", "p95 ms", "mean ms"], left=2)
    lines += ["", "targets:"]
    for r in results:
        whole, ret, given, theirs, theirs_given, peer = (
            summary(r.times[m]) for m in (
                "whole", "retrieval", "retrieval_given", "graphrag", "graphrag_given",
                "graphrag_cypher",
            )
        )  # fmt: skip
        checks = [
            ("whole p95 / HybridCypher p95", whole["p95"] / peer["p95"],
             TARGET_WHOLE_VS_GRAPH_PEER_P95, "x"),
            ("retrieval p95 / Hybrid p95", ret["p95"] / theirs["p95"],
             TARGET_RETRIEVAL_VS_GRAPHRAG_P95, "x"),
            ("given p95 / Hybrid given p95", given["p95"] / theirs_given["p95"],
             TARGET_RETRIEVAL_VS_GRAPHRAG_P95, "x"),
            ("whole p50", whole["p50"], TARGET_WHOLE_P50_MS, " ms"),
        ]  # fmt: skip
        if r.paragraphs >= 1_000_000:
            checks.append(("whole p95 at a million", whole["p95"], TARGET_WHOLE_P95_1M_MS, " ms"))
        for name, value, target, unit in checks:
            verdict = "met" if value <= target else "MISSED"
            lines.append(f"  {r.scale:<5} {name:<30} {value:8.2f}{unit:<3} target <= "
                         f"{target}{unit.strip()}  {verdict}")  # fmt: skip
    lines += ["", "after the embedding (both retrievals with the question's vector given):"]
    for r in results:
        ours, theirs = summary(r.times["retrieval_given"]), summary(r.times["graphrag_given"])
        lines.append(
            f"  {r.scale:<5} ours / HybridRetriever p50 {ours['p50']:.1f} / {theirs['p50']:.1f} "
            f"ms ({ours['p50'] / theirs['p50']:.2f}x), p95 {ours['p95']:.1f} / "
            f"{theirs['p95']:.1f} ms ({ours['p95'] / theirs['p95']:.2f}x)"
        )
    lines += ["", "our answer path per stage (trace.timingsMs; retrieval includes the embedding):"]
    stage_names = list(dict.fromkeys(k for r in results for s in r.stages for k in s))
    rows = []
    for stage in stage_names:
        row = [stage]
        for r in results:
            values = [s.get(stage, 0.0) for s in r.stages]
            row += [f"{pct(values, 50):.1f}", f"{pct(values, 95):.1f}"]
        rows.append(row)
    header = ["stage"] + [f"{r.scale} {q}" for r in results for q in ("p50", "p95")]
    lines += table(rows, header)
    lines += ["", "our Cypher statements (trace.cypher elapsedMs, client-side incl. round trip):"]
    names = sorted(
        {n for r in results for n in r.cypher},
        key=lambda n: -max(statistics.fmean(r.cypher.get(n, [0])) for r in results),
    )
    rows = []
    for name in names:
        row = [name]
        for r in results:
            values = r.cypher.get(name, [])
            rows_n = r.cypher_rows.get(name, [])
            row += [f"{len(values) / max(1, len(r.stages)):.3g}",
                    f"{pct(values, 50):.1f}" if values else "-",
                    f"{pct(values, 95):.1f}" if values else "-",
                    f"{statistics.median(rows_n):.0f}" if rows_n else "-"]  # fmt: skip
        rows.append(row)
    header = ["statement"] + [f"{r.scale} {c}" for r in results
                              for c in ("calls/q", "p50", "p95", "rows p50")]  # fmt: skip
    lines += table(rows, header)
    if len(results) >= 2:
        small, large = results[0], results[-1]
        lines += ["", f"growth {small.scale} -> {large.scale} "
                      f"({large.paragraphs / small.paragraphs:.0f}x paragraphs):"]  # fmt: skip
        for m in MEASURES:
            a, b = summary(small.times[m]), summary(large.times[m])
            lines.append(f"  {MEASURE_NAMES[m]:<38} p50 {a['p50']:7.1f} -> {b['p50']:7.1f} ms "
                         f"({b['p50'] / a['p50']:.2f}x)   p95 {a['p95']:7.1f} -> {b['p95']:7.1f} "
                         f"ms ({b['p95'] / a['p95']:.2f}x)")  # fmt: skip
    lines += ["", "corpus and memory:"]
    for r in results:
        lines.append(f"  {r.scale}: ingest {r.corpus}")
    lines.append(
        f"  Neo4j heap {meta['neo4jHeap']}, page cache {meta['neo4jPageCache']}; bench process "
        f"peak RSS {meta['peakRssMiB']:.0f} MiB (the model, the corpora, the answer path)"
    )
    lines += ["", "sanity and machine:"]
    for r in results:
        lines.append(
            f"  {r.scale}: statuses {r.statuses}, intents {r.intents}, vector mode "
            f"{r.vector_modes}, our hits/q p50 {statistics.median(r.hits):.0f}, graphrag items/q "
            f"p50 {statistics.median(r.graphrag_items):.0f}"
        )
        lines.append(f"  {r.scale}: CPU during timing {r.cpu}")
    return lines
