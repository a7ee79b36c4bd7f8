"""The parts of bench/evidence_latency.py (the evidence-path latency benchmark), one concept
each: the synthetic corpus and its ingest (corpus), the questions asked of it (questions),
neo4j-graphrag's HybridRetriever beside ours (graphrag), the timed runs (timing) and the printed
table (report). bench/evidence_latency.py parses the options and runs them in order.
"""

from __future__ import annotations

from service.settings import project_root

ROOT = project_root()
OUT = ROOT / "bench" / "out" / "evidence-latency"
