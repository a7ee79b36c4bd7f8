"""Evidence-path latency benchmark: our whole evidence path (plan -> context pack, query
embedding included) and our retrieval stage, side by side with neo4j-graphrag's
HybridRetriever and HybridCypherRetriever (with graph context) on the same Neo4j, indexes,
embedder and questions, at 10k and 100k paragraphs by default, and at a million in one scope
(`1m`) or over ten (`1m-10`) when asked: writing a million takes about an hour.

    .venv/bin/python bench/evidence_latency.py [--questions 220] [--top-k 10] [--scales 10k,100k]

Corpus: generated Markdown documents (sentences of the shipped knowledge base recombined, 25
paragraphs per document under headings, a table and a code block, five front-matter relations
and a link per document) under bench/out/evidence-latency/corpus/, ingested by the project's own
`ingest()` (parse, units, skip-unchanged, write, prune, end-of-scope steps) into the scopes
`bench-latency-10k` and `bench-latency-100k`. Embedding 110k paragraphs with the real model would
take hours on 2 cores, so the stored paragraph vectors are synthetic: 2,000 real paragraphs of
the corpus are embedded once with the real model, and ingest is handed an embedder that gives
every paragraph a perturbed copy of one of them (Gaussian noise, re-normalised). Query
embeddings are always real. Unchanged documents are skipped by ingest itself, so a scope that
already holds this corpus is not rewritten; a partial or outdated one is completed.

Timing (warm, one client, sequential): after a warm-up, every question is run through seven
measures in rotating order: the query embedding alone, our retrieval stage (plan + query
embedding + `retrieve_spans`), our whole evidence path (plan -> context pack), our whole answer
path (`answer_question`), `HybridRetriever.search(query_text=..., top_k=10)` (its embedding
included: in this process it embeds through the very code ours uses, so the two differ only in
the retrieval work), and both retrievals again with the question's vector given (computed
untimed just before): what each does after the embedding, without the overlap of our first
reads with it.
Each measure meets the question as new (compiled per-question regular expressions are dropped
from Python's `re` cache before each one). HybridRetriever has no scope filter: it searches the
whole indexes, i.e. every scope in the database. Raw timings, traces and the table go to
bench/out/evidence-latency/.

neo4j-graphrag comes from bench/graphrag-requirements.txt: installed into the project venv
when `pip install --dry-run` shows it changes no installed package, else into
bench/out/graphrag-venv and run in a child process that reports per-query timings as JSON.

The parts are in bench/latency/: corpus.py (the generated corpus and its ingest), questions.py,
graphrag.py (HybridRetriever beside ours), timing.py (the timed runs) and report.py (the table).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
import zlib
from typing import Any

from latency import OUT, ROOT
from latency.corpus import (
    SCALES,
    SPREAD_SCALES,
    Corpus,
    SyntheticEmbedder,
    ensure_corpus,
    generate,
    sentences,
    synthetic_embedder,
    vocabulary,
)
from latency.graphrag import FULLTEXT_INDEX, RETRIEVAL_QUERY, VECTOR_INDEX, graphrag_side
from latency.questions import make_questions
from latency.report import report, summary
from latency.served import ask_served, served
from latency.timing import MEASURES, WARMUP_QUESTIONS, ScaleResult, time_scale

from ingest.embeddings import SentenceTransformerEmbedder, model_location
from service.api.process import freeze_startup_objects
from service.db import open_graph
from service.settings import Settings

SERVED_PORT = 8012


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--questions", type=int, default=220)
    parser.add_argument("--top-k", type=int, default=10)
    parser.add_argument(
        "--text-caches", choices=("warm", "cold"), default="warm",
        help="warm: one untimed pass over the questions first fills the service's sentence and "
        "fact caches, as a running service has them; cold: emptied before every measure",
    )  # fmt: skip
    known = [*SCALES, *SPREAD_SCALES]
    parser.add_argument("--scales", default="10k,100k", help="comma list of: " + ", ".join(known))
    parser.add_argument(
        "--served", type=int, default=60, metavar="N",
        help="then N questions per scale through `kgs serve` and POST /v1/query, each asked "
        "twice (new to the text caches, then found there), with the served processes' memory "
        "(0: skip)",
    )  # fmt: skip
    parser.add_argument(
        "--corpus-only", action="store_true",
        help="write (or complete) the scales' corpora and stop: a million paragraphs take an hour",
    )  # fmt: skip
    args = parser.parse_args()
    if args.questions < 1:
        parser.error("--questions must be positive")
    scales = [s.strip() for s in args.scales.split(",") if s.strip()]
    unknown = [s for s in scales if s not in known]
    if unknown:
        parser.error(f"unknown scale(s) {unknown}; known: {sorted(known)}")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    settings = Settings.from_env()
    newest = max(
        (f for d in ("service", "ingest", "cypher") for f in (ROOT / d).rglob("*.*")
         if "__pycache__" not in f.parts),
        key=lambda f: f.stat().st_mtime,
    )  # fmt: skip
    code_newest = (  # the code this run imported (checked at start: others edit concurrently)
        f"{newest.relative_to(ROOT)} "
        f"{time.strftime('%H:%M:%S', time.localtime(newest.stat().st_mtime))}"
    )
    OUT.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()

    pool = sentences()
    words = vocabulary(pool)

    def scale_corpora(scale: str) -> list[Corpus]:
        """One scope, or a spread scale's scopes (questions go to the first)."""
        if scale in SPREAD_SCALES:
            prefix, count, each = SPREAD_SCALES[scale]
            return [generate(f"{prefix}-{i}", each, pool, words) for i in range(count)]
        return [generate(SCALES[scale][0], SCALES[scale][1], pool, words)]

    corpora = {s: scale_corpora(s) for s in scales}
    base_corpus = generate(*SCALES["10k"], pool, words)

    graph, connection, close = open_graph(settings)
    try:
        embedder = SentenceTransformerEmbedder(settings.embedding.for_queries())  # as served
        embedder.embed(["warm the model"])
        print("corpus:", flush=True)
        synthetic: list[SyntheticEmbedder] = []

        def make_synthetic() -> SyntheticEmbedder:
            if not synthetic:  # only when a corpus must be written
                limit = settings.ingest.max_paragraph_chars
                synthetic.append(synthetic_embedder(embedder, base_corpus, limit))
            return synthetic[0]

        written = {
            s: {"scopes": [ensure_corpus(graph, c, settings, make_synthetic) for c in corpora[s]]}
            for s in scales
        }
        if args.corpus_only:
            print(json.dumps(written, indent=1), flush=True)
            return
        model_path = model_location(settings.embedding.model)
        peer_connection = {
            "uri": connection.uri, "user": connection.user, "password": connection.password,
            "database": connection.database, "model": model_path, "vector": VECTOR_INDEX,
            "fulltext": FULLTEXT_INDEX, "threads": settings.embedding.max_threads,
        }  # fmt: skip
        graphrag = graphrag_side(graph, embedder, peer_connection, args.top_k)
        graphrag_cypher = graphrag_side(
            graph, embedder, peer_connection, args.top_k, retrieval_query=RETRIEVAL_QUERY
        )
        # As a served process does once started (service/api/state.py): what was allocated so
        # far (the model, the generated corpora) stays out of garbage collection, so full
        # collections scan only what questions allocate.
        freeze_startup_objects(settings.api.gc_young_threshold)
        try:
            version = graph.driver.get_server_info().agent
            # The label's count store answers this at once; counting the vectors would read
            # every one of them (minutes at 2M paragraphs): each scope checked its own above.
            indexed = graph.read_text("MATCH (p:Paragraph) RETURN count(p) AS n", {})[0]
            results = []
            asked: dict[str, list[str]] = {}
            for s in scales:
                corpus = corpora[s][0]
                seed = zlib.crc32(corpus.scope.encode())
                questions = make_questions(corpus.titles, words, pool, args.questions, seed)
                warmup = make_questions(corpus.titles, words, pool, WARMUP_QUESTIONS, seed + 1)
                asked[corpus.scope] = [q for _, q in [*warmup, *questions]]
                result = ScaleResult(s, corpus.scope, corpus.paragraphs, corpus=written[s])
                print(f"timing {corpus.scope}: {len(questions)} questions", flush=True)
                time_scale(graph, embedder, graphrag, graphrag_cypher, result, questions, warmup,
                           args.top_k, cold_texts=args.text_caches == "cold")  # fmt: skip
                results.append(result)
        finally:
            graphrag.close()
            graphrag_cypher.close()
    finally:
        close()

    meta = {
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "embeddingThreads": settings.embedding.query_threads,
        "codeNewest": code_newest,
        "cores": os.cpu_count(),
        "neo4jVersion": version,
        "topK": args.top_k,
        "questions": args.questions,
        "textCaches": args.text_caches,
        "graphragMode": graphrag.mode,
        "indexedParagraphs": int(indexed["n"]),
        "totalSeconds": round(time.perf_counter() - started, 1),
        "neo4jHeap": settings.local.heap_max,
        "neo4jPageCache": settings.local.pagecache_size,
        "peakRssMiB": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }
    served_figures: dict[str, Any] = {}
    if args.served > 0:
        with served(SERVED_PORT) as server:
            for scope, texts in asked.items():
                served_figures[scope] = ask_served(
                    SERVED_PORT, server.pid, scope, texts[: WARMUP_QUESTIONS + args.served],
                    WARMUP_QUESTIONS,
                )  # fmt: skip
    lines = report(results, meta)
    for scope, figures in served_figures.items():
        lines.append(f"  through kgs serve, POST /v1/query, {scope}: {figures}")
    lines.append(f"  total run time {meta['totalSeconds']:.0f} s")
    print("\n" + "\n".join(lines))
    stamp = time.strftime("%Y%m%d-%H%M%S")
    (OUT / f"report-{stamp}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    raw = {
        "meta": meta,
        "served": served_figures,
        "scales": [
            {"scale": r.scale, "scope": r.scope, "paragraphs": r.paragraphs, "corpus": r.corpus,
             "summary": {m: summary(r.times[m]) for m in MEASURES}, "timesMs": r.times,
             "stagesMs": r.stages, "cypherMs": r.cypher, "cypherRows": r.cypher_rows,
             "cpu": r.cpu, "statuses": r.statuses, "intents": r.intents}
            for r in results
        ],
    }  # fmt: skip
    (OUT / f"results-{stamp}.json").write_text(json.dumps(raw, indent=1), encoding="utf-8")
    print(f"  raw timings: {OUT / f'results-{stamp}.json'}")


if __name__ == "__main__":
    main()
