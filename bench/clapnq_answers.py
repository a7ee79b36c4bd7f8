"""The whole answer path on ClapNQ dev (all 600 questions), with no LLM.

    .venv/bin/python bench/clapnq_answers.py [--eval-dir ../shared/eval] [--ingest] [--limit N]

Uses the `eval-clapnq` scope that bench/retrieval_quality.py builds (its Markdown files under
bench/out/eval-kb/ and its ingest; pass --ingest to (re)build and ingest them, which is
idempotent). Every question goes through answer_question(llm=False), as the API runs it, and:

- abstention: answered = status other than "abstained"; gold = ClapNQ's answerable flag;
  balanced accuracy = mean of the answered share of answerable and the abstained share of
  unanswerable questions;
- grounding: on answerable questions, the share of the annotated gold sentences (`gold_sentences`)
  that lie inside the cited spans (>= 80 % of a gold sentence's characters covered by citations
  of its gold passage), over all answerable questions (an abstention covers nothing) and over the
  answered ones; plus the mean number of cited characters, so nobody mistakes quoting whole
  passages for grounding;
- citation integrity: citations whose quote differs from the source file between its offsets;
- latency: p50/p95 of answer_question wall time (the whole answer path, embeddings included).

Halves: questions at even positions of dev_queries.jsonl (half A) were used to fit the
answerability weights (AnswerSettings); half B was not looked at while fitting. Both are printed.
Data: ClapNQ (Apache-2.0; passages from Wikipedia, CC BY-SA), see ../shared/eval/README.md.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from bench.retrieval_quality import CLAPNQ, KB, MAP_FILE, build_corpora, read_jsonl
from ingest.embeddings import SentenceTransformerEmbedder
from ingest.pipeline import IngestOptions, ingest
from service.db import graph_session
from service.pipeline.runner import answer_question
from service.settings import Settings, project_root

FIT_STEPS = 20_000  # gradient steps of the answerability fit (2 features: converges slowly)
COVERED_SHARE = 0.8  # of a gold sentence's characters inside cited spans
RESULTS = project_root() / "bench" / "out" / "clapnq_answers.json"


def covered(gold: str, passage: str, spans: Sequence[tuple[int, int]]) -> bool:
    """Whether the gold sentence (located in the passage text) is inside the cited ranges."""
    start = passage.find(gold)
    if start < 0:
        start = " ".join(passage.split()).find(" ".join(gold.split()))
        if start < 0:
            return False
    end = start + len(gold)
    inside = sum(max(0, min(end, hi) - max(start, lo)) for lo, hi in _union(spans))
    return inside >= COVERED_SHARE * (end - start)


def _union(spans: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for lo, hi in sorted(spans):
        if merged and lo <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], hi))
        else:
            merged.append((lo, hi))
    return merged


def evaluate(
    rows: Sequence[Mapping[str, Any]],
    responses: Sequence[Mapping[str, Any]],
    pid_of: Mapping[str, str],
) -> dict[str, float]:
    answerable = [(r, x) for r, x in zip(rows, responses, strict=True) if r["answerable"]]
    unanswerable = [(r, x) for r, x in zip(rows, responses, strict=True) if not r["answerable"]]
    answered = [x["status"] != "abstained" for _, x in answerable]
    abstained = [x["status"] == "abstained" for _, x in unanswerable]
    tpr = sum(answered) / max(len(answered), 1)
    tnr = sum(abstained) / max(len(abstained), 1)
    recalls, recalls_answered, cited_chars = [], [], []
    for row, response in answerable:
        gold_pids = set(row["gold_pids"])
        spans: dict[str, list[tuple[int, int]]] = {}
        for citation in response["citations"]:
            pid = pid_of.get(citation["path"])
            if pid in gold_pids:
                spans.setdefault(citation["path"], []).append(
                    (citation["startOffset"], citation["endOffset"])
                )
        text = {path: (KB / path).read_text(encoding="utf-8") for path in spans}
        hits = sum(
            1 for gold in row["gold_sentences"]
            if any(covered(gold, text[path], ranges) for path, ranges in spans.items())
        )  # fmt: skip
        recall = hits / len(row["gold_sentences"]) if row["gold_sentences"] else 0.0
        recalls.append(recall)
        if response["status"] != "abstained":
            recalls_answered.append(recall)
            cited_chars.append(sum(len(c["quote"]) for c in response["citations"]))
    return {
        "answerable": len(answerable),
        "unanswerable": len(unanswerable),
        "answered_share_of_answerable": round(tpr, 3),
        "abstained_share_of_unanswerable": round(tnr, 3),
        "balanced_accuracy": round((tpr + tnr) / 2, 3),
        "gold_sentence_recall": round(statistics.mean(recalls or [0.0]), 3),
        "gold_sentence_recall_answered": round(statistics.mean(recalls_answered or [0.0]), 3),
        "mean_cited_chars": round(statistics.mean(cited_chars or [0.0]), 1),
    }


def quote_mismatches(responses: Sequence[Mapping[str, Any]]) -> int:
    bad = 0
    for response in responses:
        for citation in response["citations"]:
            source = (KB / citation["path"]).read_text(encoding="utf-8")
            if source[citation["startOffset"] : citation["endOffset"]] != citation["quote"]:
                bad += 1
    return bad


def fit_answerability(
    rows: Sequence[Mapping[str, Any]], responses: Sequence[Mapping[str, Any]]
) -> tuple[float, float, float] | None:
    """Logistic regression of answerable ~ (paragraph cosine, sentence cosine), plain gradient
    descent; the weights to put into AnswerSettings (fit on half A only)."""
    points = []
    for row, response in zip(rows, responses, strict=True):
        inputs = response["trace"]["ragSufficiencyReview"].get("answerabilityInputs")
        if inputs:
            points.append((float(inputs[0]), float(inputs[1]), 1.0 if row["answerable"] else 0.0))
    if not points:
        return None
    w1 = w2 = b = 0.0
    rate = 2.0
    for _ in range(FIT_STEPS):
        g1 = g2 = gb = 0.0
        for x1, x2, y in points:
            p = 1.0 / (1.0 + math.exp(-(w1 * x1 + w2 * x2 + b)))
            g1, g2, gb = g1 + (p - y) * x1, g2 + (p - y) * x2, gb + (p - y)
        n = len(points)
        w1, w2, b = w1 - rate * g1 / n, w2 - rate * g2 / n, b - rate * gb / n
    return round(w1, 2), round(w2, 2), round(b, 2)


def percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--eval-dir", type=Path,
                        default=project_root().parent / "shared" / "eval")  # fmt: skip
    parser.add_argument("--ingest", action="store_true", help="(re)build and ingest the corpus")
    parser.add_argument("--limit", type=int, default=0, help="first N questions only (smoke)")
    args = parser.parse_args()
    eval_dir: Path = args.eval_dir.resolve()
    settings = Settings.from_env()
    if args.ingest or not MAP_FILE.is_file():
        build_corpora(eval_dir)
    mapping: dict[str, str] = json.loads(MAP_FILE.read_text(encoding="utf-8"))
    rows = read_jsonl(eval_dir / "clapnq" / "derived" / "dev_queries.jsonl")
    if args.limit:
        rows = rows[: args.limit]
    embedder = SentenceTransformerEmbedder(settings.embedding)
    responses: list[dict[str, Any]] = []
    elapsed: list[float] = []
    with graph_session(settings) as graph:
        if args.ingest:
            ingest(graph, embedder, KB, IngestOptions(prune=True), settings.ingest)
        answer_question(graph, embedder, "warm up", scope=CLAPNQ, llm=False)
        for index, row in enumerate(rows, 1):
            started = time.perf_counter()
            response = answer_question(graph, embedder, row["question"], scope=CLAPNQ, llm=False)
            elapsed.append((time.perf_counter() - started) * 1000)
            responses.append(response)
            if index % 100 == 0:
                print(f"{index} questions", flush=True)
    halves = {
        "A (fit)": [i for i in range(len(rows)) if i % 2 == 0],
        "B (held out)": [i for i in range(len(rows)) if i % 2 == 1],
        "all": list(range(len(rows))),
    }
    report = {
        name: evaluate([rows[i] for i in idx], [responses[i] for i in idx], mapping)
        for name, idx in halves.items()
    }
    mismatches = quote_mismatches(responses)
    fitted = fit_answerability([rows[i] for i in halves["A (fit)"]],
                               [responses[i] for i in halves["A (fit)"]])  # fmt: skip
    print(f"\nClapNQ dev, answer path without an LLM ({len(rows)} questions)")
    header = f"{'half':<14}{'n':>5}{'answered|ans':>14}{'abstained|unans':>17}{'bal.acc':>9}" \
             f"{'gold recall':>13}{'(answered)':>12}{'cited chars':>13}"  # fmt: skip
    print(header)
    for name, m in report.items():
        print(
            f"{name:<14}{m['answerable'] + m['unanswerable']:>5}"
            f"{m['answered_share_of_answerable']:>14.3f}{m['abstained_share_of_unanswerable']:>17.3f}"
            f"{m['balanced_accuracy']:>9.3f}{m['gold_sentence_recall']:>13.3f}"
            f"{m['gold_sentence_recall_answered']:>12.3f}{m['mean_cited_chars']:>13.1f}"
        )
    print(f"citations whose quote != source[start:end]: {mismatches}")
    if fitted:
        print(f"answerability fit on half A (paragraph weight, sentence weight, bias): {fitted}")
    print(f"answer path latency: p50 {percentile(elapsed, 0.5):.0f} ms, "
          f"p95 {percentile(elapsed, 0.95):.0f} ms")  # fmt: skip
    questions = [
        {"qid": row["qid"], "answerable": row["answerable"], "status": response["status"],
         "review": {k: response["trace"]["ragSufficiencyReview"].get(k)
                    for k in ("status", "reasons", "answerability", "answerabilityInputs")},
         "citations": len(response["citations"]), "ms": round(ms, 1)}
        for row, response, ms in zip(rows, responses, elapsed, strict=True)
    ]  # fmt: skip
    RESULTS.write_text(json.dumps({"metrics": report, "quoteMismatches": mismatches,
                                   "fittedOnA": fitted,
                                   "latencyMs": {"p50": percentile(elapsed, 0.5),
                                                 "p95": percentile(elapsed, 0.95)},
                                   "questions": questions}, indent=1))  # fmt: skip


if __name__ == "__main__":
    main()
