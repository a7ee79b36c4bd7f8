"""The conflict scan alone, on the documents the evidence path selects for the latency bench's
questions: how long `scan_conflicts` takes, and a digest of everything it finds.

    .venv/bin/python bench/conflict_scan.py [--scale 100k] [--questions 200] [--rounds 3]
        [--text-caches warm|cold] [--analyses]

Each question runs plan, retrieval and graph context against the scale's scope (written by
`bench/evidence_latency.py`; for a scale spread over scopes, its first, which the latency bench
asks), and its matched and neighbour documents are read whole, as
`augment_documents` reads them, their Fact nodes with them. Then the scan runs over those
passages: once untimed (the service's text caches filled, as the latency bench's warm measures
have them), then `--rounds` timed passes; with `--text-caches cold` the caches are emptied
before every timed scan. `--analyses` leaves the Fact nodes and document profiles out: every
passage's stored analysis is decoded, as the scan read them before facts were nodes. The
digest covers every conflict and qualified fact of every question: a change meant only to make
the scan faster must leave it as it was, and both ways of reading must give the same.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import time
import zlib

import msgspec
from latency.corpus import SCALES, SPREAD_SCALES, generate, sentences, vocabulary
from latency.questions import make_questions
from latency.report import summary
from latency.timing import forget_texts

from ingest.embeddings import SentenceTransformerEmbedder
from service.api.process import freeze_startup_objects
from service.db import Graph, open_graph
from service.pipeline.augment import document_rows, passage_of, stored_profiles
from service.pipeline.channels import scope_size
from service.pipeline.conflicts import ConflictScan, scan_conflicts
from service.pipeline.graph_context import build_graph_context
from service.pipeline.plan import plan_query
from service.pipeline.retrieval import retrieve_spans
from service.settings import Settings
from service.text.facts import DocumentProfile, Passage


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--scale", default="100k", choices=sorted([*SCALES, *SPREAD_SCALES]))
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--text-caches", choices=("warm", "cold"), default="warm")
    parser.add_argument("--analyses", action="store_true",
                        help="scan the stored analyses, not the Fact nodes")  # fmt: skip
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    settings = Settings.from_env()
    if args.scale in SPREAD_SCALES:
        prefix, _, paragraphs = SPREAD_SCALES[args.scale]
        scope = f"{prefix}-0"  # as bench/evidence_latency.py names the parts
    else:
        scope, paragraphs = SCALES[args.scale]
    pool = sentences()
    words = vocabulary(pool)
    corpus = generate(scope, paragraphs, pool, words)
    graph, _, close = open_graph(settings)
    try:
        # The size retrieval reads (paragraphs only: counting stored vectors takes minutes at 1M).
        held = scope_size(graph, scope, settings.pipeline).paragraphs
        if held != paragraphs:
            raise SystemExit(
                f"{scope} holds {held} paragraphs, not {paragraphs}: write it with "
                f"bench/evidence_latency.py --scales {args.scale} --corpus-only"
            )
        embedder = SentenceTransformerEmbedder(settings.embedding.for_queries())
        seed = zlib.crc32(scope.encode())
        questions = [q for _, q in make_questions(corpus.titles, words, pool, args.questions, seed)]
        inputs = [_scan_input(graph, embedder, scope, q, settings) for q in questions]
    finally:
        close()
    if args.analyses:
        inputs = [([msgspec.structs.replace(p, facts=None) for p in passages], focus, {})
                  for passages, focus, _ in inputs]  # fmt: skip

    # As the service does once started (service/api/process.py): startup's objects are left out
    # of every later garbage collection.
    freeze_startup_objects(settings.api.gc_young_threshold)
    conflict_settings = settings.conflicts
    found = [scan_conflicts(passages, conflict_settings, focus=focus, profiles=profiles)
             for passages, focus, profiles in inputs]  # fmt: skip
    elapsed: list[float] = []
    for _ in range(args.rounds):
        for passages, focus, profiles in inputs:
            if args.text_caches == "cold":
                forget_texts()
            started = time.perf_counter()
            scan_conflicts(passages, conflict_settings, focus=focus, profiles=profiles)
            elapsed.append((time.perf_counter() - started) * 1000)
    figures = summary(elapsed)
    print(
        f"{scope}: {len(inputs)} questions, {args.rounds} rounds, "
        f"{sum(len(p) for p, _, _ in inputs) / len(inputs):.0f} passages per scan, text caches "
        f"{args.text_caches}, {'stored analyses' if args.analyses else 'Fact nodes'}"
    )
    print(f"  scan ms: p50 {figures['p50']:.2f}  p95 {figures['p95']:.2f}  "
          f"mean {figures['mean']:.2f}")  # fmt: skip
    print(
        f"  findings: {sum(len(s.conflicts) for s in found)} conflicts, "
        f"{sum(len(s.qualified) for s in found)} qualified subjects, digest {_digest(found)}"
    )


def _scan_input(
    graph: Graph, embedder: SentenceTransformerEmbedder, scope: str, question: str,
    settings: Settings,
) -> tuple[list[Passage], frozenset[str], dict[str, DocumentProfile]]:  # fmt: skip
    """The passages, focus documents and stored profiles `augment_documents` would scan for
    this question."""
    plan = plan_query(question, scope)
    vector = embedder.embed([plan.query])[0]
    retrieval = retrieve_spans(graph, plan, vector, settings.pipeline)
    context = build_graph_context(graph, plan, retrieval, settings.pipeline)
    neighbours = [*context.predecessors, *context.successors]
    hits = [h.document_id for h in retrieval.hits]
    wanted = list(dict.fromkeys(hits + [n.document_id for n in neighbours if n.document_id]))
    rows = document_rows(graph, wanted)
    return [passage_of(row) for row in rows], frozenset(hits), stored_profiles(rows)


def _digest(scans: list[ConflictScan]) -> str:
    """Every finding's kind, key, scope and sides (document, value, sentence), in order."""
    text = repr([
        [(c.kind, c.key, c.scope, [(f.document_id, f.norm, f.sentence_start) for f in c.sides])
         for c in scan.conflicts]
        + [(q.key, [(f.document_id, f.norm, f.sentence_start) for f in q.sides])
           for q in scan.qualified]
        for scan in scans
    ])  # fmt: skip
    return hashlib.sha256(text.encode()).hexdigest()[:16]


if __name__ == "__main__":
    main()
