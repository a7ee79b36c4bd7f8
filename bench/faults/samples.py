"""Step 4: every SAMPLE_INTERVAL_S during the load, the service's RSS (VmRSS) and the open Neo4j
transactions (all, and those of API requests)."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from load_bench import read_status_mib

from faults.workload import Results
from service.db.graph import Graph

SAMPLE_INTERVAL_S = 5.0


@dataclass
class Sample:
    at_s: float
    rss_mib: float
    open_transactions: int
    service_transactions: int


def read_rss_mib(pid: int) -> float:
    return read_status_mib(pid, "VmRSS")


async def take_sample(graph: Graph, pid: int, origin: float) -> Sample:
    row = (await asyncio.to_thread(graph.read, "admin/open_transactions"))[0]
    # The sampler's own transaction is open while it counts.
    return Sample(round(time.monotonic() - origin, 1), read_rss_mib(pid), int(row["open"]) - 1,
                  int(row["service"]))  # fmt: skip


async def sampler(graph: Graph, pid: int, origin: float, deadline: float, samples: list[Sample],
                  results: Results) -> None:  # fmt: skip
    while time.monotonic() < deadline:
        sample = await take_sample(graph, pid, origin)
        samples.append(sample)
        fives = sum(n for c in results.statuses.values() for s, n in c.items() if s[0] == "5")
        print(f"  t={sample.at_s:5.0f} s  rss {sample.rss_mib:6.0f} MiB  transactions "
              f"{sample.open_transactions} (service {sample.service_transactions})  requests "
              f"{results.sent}  5xx {fives}  uploads {len(results.acked_uploads)}  deletes "
              f"{len(results.acked_deletes)}", flush=True)  # fmt: skip
        await asyncio.sleep(max(0.0, min(SAMPLE_INTERVAL_S, deadline - time.monotonic())))
