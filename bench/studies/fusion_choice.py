"""Choose the retrieval fusion on the fit halves of every public set, report the other halves.

    PYTHONPATH=bench .venv/bin/python bench/studies/fusion_choice.py \
        [--sets clapnq,s10-plain,s10-structured,squad]

Runs only retrieval (retrieve_spans, topK 10) over the scopes bench/public_sets.py ingested,
for each candidate fusion (PipelineSettings.fusion and the channel weights), and prints document
Recall@1 / @5 on the fit half (questions at even positions) and the report half (odd positions)
of each set's answerable questions with gold documents. A fusion is chosen by its mean R@1 + R@5
over the fit halves only.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import msgspec
from public_sets import SETS, clapnq_set, s10_sets, squad_set

from ingest.embeddings import SentenceTransformerEmbedder
from service.db import graph_session
from service.pipeline.plan import plan_query
from service.pipeline.retrieval import retrieve_spans
from service.settings import PipelineSettings, Settings, project_root

TOP_K = 10
CANDIDATES: dict[str, PipelineSettings] = {
    "score 0.6/0.4 (default)": PipelineSettings(),
    "score 0.5/0.5": PipelineSettings(vector_weight=0.5, fulltext_weight=0.5),
    "score 0.4/0.6": PipelineSettings(vector_weight=0.4, fulltext_weight=0.6),
    "rrf 1/1": PipelineSettings(fusion="rrf", vector_weight=1.0, fulltext_weight=1.0),
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--eval-dir", default=str(project_root().parent / "shared" / "eval"))
    parser.add_argument("--sets", default=",".join(SETS))
    args = parser.parse_args(argv)
    eval_dir = Path(args.eval_dir)
    wanted = args.sets.split(",")
    sets = [s for s in [clapnq_set(eval_dir), *s10_sets(eval_dir), squad_set(eval_dir)]
            if s.name in wanted]  # fmt: skip
    settings = Settings.from_env()
    embedder = SentenceTransformerEmbedder(settings.embedding.for_queries())
    totals: dict[str, list[float]] = {name: [] for name in CANDIDATES}
    with graph_session(settings, ensure_schema=False) as graph:
        for public in sets:
            questions = [q for q in public.questions if q.answerable and q.gold]
            vectors = embedder.embed([q.question for q in questions])
            print(f"\n{public.name}: {len(questions)} questions")
            for name, pipeline in CANDIDATES.items():
                ranks: list[int | None] = []
                for q, vector in zip(questions, vectors, strict=True):
                    plan = plan_query(q.question, public.scope, None)
                    found = retrieve_spans(graph, plan, vector, pipeline, top_k=TOP_K)
                    documents = [d.path for d in found.ranked]
                    gold = set(q.gold)
                    ranks.append(next((i for i, d in enumerate(documents, 1) if d in gold), None))
                fit, rest = ranks[0::2], ranks[1::2]
                cells = [_recall(part, k) for part in (fit, rest) for k in (1, 5)]
                totals[name].append(cells[0] + cells[1])
                print(f"  {name:<24} fit R@1 {cells[0]:.3f} R@5 {cells[1]:.3f}   "
                      f"report R@1 {cells[2]:.3f} R@5 {cells[3]:.3f}")  # fmt: skip
    chosen = max(totals, key=lambda n: sum(totals[n]))
    print(f"\nchosen on the fit halves: {chosen}")
    print(msgspec.json.encode({n: round(sum(v), 4) for n, v in totals.items()}).decode())
    return 0


def _recall(ranks: Sequence[int | None], k: int) -> float:
    return sum(1 for r in ranks if r is not None and r <= k) / len(ranks) if ranks else 0.0


if __name__ == "__main__":
    sys.exit(main())
