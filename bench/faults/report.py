"""Step 6: the closing table (every line starts with `load`): per route requests, rate and
latency percentiles, then PASS/FAIL per target."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from load_bench import percentile

from faults.knowledge_base import SCOPE
from faults.samples import Sample
from faults.verification import Verdict
from faults.workload import ERROR_SAMPLES, REQUEST_TIMEOUT_S, ROUTES, SUCCESS, Results

LABELS = {
    "query": "POST /v1/query",
    "document": "GET /v1/documents/{id}",
    "point": "GET /v1/knowledge-points/{id}",
    "search": "GET /v1/knowledge-points?q=",
    "upload": "POST /v1/documents",
    "delete": "DELETE /v1/documents/{id}",
}
RSS_SLOPE_MAX_MIB_PER_MIN = 10.0  # over the second half of the load
# The service's bounded caches (1000 traces, 4096 query vectors, 8192 passages' facts and
# sentences) fill for several minutes at this load, so RSS grows throughout a 120 s run by
# design; the slope is judged only on runs at least this long (a soak), else reported.
RSS_SLOPE_MIN_DURATION_S = 600.0
RSS_PEAK_MAX_MIB = 1536.0


def slope_mib_per_min(samples: list[Sample], from_s: float) -> float:
    points = [(s.at_s / 60, s.rss_mib) for s in samples if s.at_s >= from_s]
    if len(points) < 2:
        return float("nan")
    mean_t = sum(t for t, _ in points) / len(points)
    mean_r = sum(r for _, r in points) / len(points)
    spread = sum((t - mean_t) ** 2 for t, _ in points)
    return sum((t - mean_t) * (r - mean_r) for t, r in points) / spread if spread else 0.0


def report(args: argparse.Namespace, figures: dict[str, Any], documents: int,
           peak_rss_mib: float) -> bool:  # fmt: skip
    results: Results = figures["results"]
    samples: list[Sample] = figures["samples"]
    after: Sample = figures["after"]
    verdict: Verdict = figures["verdict"]
    elapsed: float = figures["elapsed"]
    everything = [v for values in results.latencies_ms.values() for v in values]
    fives = sum(n for c in results.statuses.values() for s, n in c.items() if s[0] == "5")
    timeouts = sum(c["timeout"] for c in results.statuses.values())
    transport = sum(c["transport"] for c in results.statuses.values())
    unexpected = sum(n for kind, c in results.statuses.items() for s, n in c.items()
                     if s != str(SUCCESS[kind]) and s[0] == "4")  # fmt: skip
    print(
        f"\n{args.clients} clients, {elapsed:.0f} s, mean think time {args.think_s} s, mix "
        f"{','.join(ROUTES)} {args.mix}; {documents} base documents in scope {SCOPE}"
    )
    for sample in results.error_samples:
        print(f"  error: {sample}")
    for problem in verdict.uploads_failed[:ERROR_SAMPLES] + verdict.deletes_failed[:ERROR_SAMPLES]:
        print(f"  lost write: {problem}")
    print()
    print("load | route | requests | req/s | p50 ms | p95 ms | p99 ms | statuses |")
    for kind in ROUTES:
        values = results.latencies_ms.get(kind, [])
        statuses = " ".join(f"{s}:{n}" for s, n in sorted(results.statuses[kind].items()))
        print(f"load | {LABELS[kind]} | {len(values)} | {len(values) / elapsed:.1f} | "
              f"{percentile(values, 50):.0f} | {percentile(values, 95):.0f} | "
              f"{percentile(values, 99):.0f} | {statuses or '-'} |")  # fmt: skip
    print(f"load | all | {len(everything)} | {len(everything) / elapsed:.1f} | "
          f"{percentile(everything, 50):.0f} | {percentile(everything, 95):.0f} | "
          f"{percentile(everything, 99):.0f} | |")  # fmt: skip
    rss = [s.rss_mib for s in samples] or [float("nan")]
    slope = slope_mib_per_min(samples, args.duration_s / 2)
    judge_slope = args.duration_s >= RSS_SLOPE_MIN_DURATION_S
    service_max = max((s.service_transactions for s in samples), default=0)
    open_max = max((s.open_transactions for s in samples), default=0)
    unacked = ", ".join(f"{k} {n}" for k, n in sorted(verdict.unacked.items())) or "none"
    live = len(results.acked_uploads) - len(results.acked_deletes)
    targets: list[tuple[str, str, bool | None]] = [
        ("5xx responses", f"{fives}", fives == 0),
        ("client timeouts", f"{timeouts} (limit {REQUEST_TIMEOUT_S:.0f} s)", timeouts == 0),
        ("transport errors", f"{transport}", transport == 0),
        ("unexpected 4xx", f"{unexpected}", unexpected == 0),
        ("acked uploads verified (read back, name search, listing)",
         f"{verdict.uploads_verified}/{live} ({len(results.acked_uploads)} acked in all)",
         verdict.uploads_verified == live and not verdict.uploads_failed),
        ("acked deletes verified (404, not listed, not found)",
         f"{verdict.deletes_verified}/{len(results.acked_deletes)}",
         verdict.deletes_verified == len(results.acked_deletes) and not verdict.deletes_failed),
        ("own uploads read back during the load", f"{results.own_read_misses} misses",
         results.own_read_misses == 0),
        ("unacknowledged writes never half done", f"{unacked}", not verdict.half),
        (f"service RSS MiB first/peak/last, VmHWM <= {RSS_PEAK_MAX_MIB:.0f}",
         f"{rss[0]:.0f}/{max(rss):.0f}/{rss[-1]:.0f}, VmHWM {peak_rss_mib:.0f}",
         peak_rss_mib <= RSS_PEAK_MAX_MIB),
        (f"service RSS slope over the 2nd half <= {RSS_SLOPE_MAX_MIB_PER_MIN:.0f} MiB/min"
         + ("" if judge_slope else
            f" (judged on runs >= {RSS_SLOPE_MIN_DURATION_S:.0f} s; caches still fill)"),
         f"{slope:+.1f} MiB/min",
         slope <= RSS_SLOPE_MAX_MIB_PER_MIN if judge_slope else None),
        ("Neo4j transactions of the service max / after the load (0)",
         f"{service_max} / {after.service_transactions} (all sessions: max {open_max}, "
         f"after {after.open_transactions})", after.service_transactions == 0),
        ("clean-up of this run's uploads", f"{figures['cleaned']} deleted, "
         f"{figures['cleanup_failures']} failed", figures["cleanup_failures"] == 0),
    ]  # fmt: skip
    print("load | target | figure | result |")
    for name, figure, met in targets:
        verdict_text = "reported" if met is None else "PASS" if met else "FAIL"
        print(f"load | {name} | {figure} | {verdict_text} |")
    passed = all(met is not False for _, _, met in targets)
    print(f"load | overall | | {'PASS' if passed else 'FAIL'} |")
    sys.stdout.flush()
    return passed
