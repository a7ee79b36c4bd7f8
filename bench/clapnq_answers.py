"""The whole answer path on ClapNQ dev (all 600 questions), with no LLM.

    .venv/bin/python bench/clapnq_answers.py [--eval-dir ../shared/eval] [--ingest] [--limit N]
    .venv/bin/python bench/clapnq_answers.py --fit   # refit the weights from the last run

Uses the `eval-clapnq` scope that bench/retrieval_quality.py builds (its Markdown files under
bench/out/eval-kb/ and its ingest; pass --ingest to (re)build and ingest them, which is
idempotent). Every question goes through answer_question(llm=False), as the API runs it, and:

- abstention: answered = status other than "abstained"; gold = ClapNQ's answerable flag;
  balanced accuracy = mean of the answered share of answerable and the abstained share of
  unanswerable questions;
- grounding: on answerable questions, the share of the annotated gold sentences (`gold_sentences`)
  that lie inside the cited spans (>= 80 % of a gold sentence's characters covered by citations
  of its gold passage), over all answerable questions (an abstention covers nothing) and over the
  answered ones; plus the mean number of cited characters and the share of them inside gold
  sentences (answered answerable questions), so nobody mistakes quoting whole passages for
  grounding;
- the same recall, cited characters and gold share by answer profile (answered answerable
  questions, all halves together);
- citation integrity: citations whose quote differs from the source file between its offsets;
- latency: p50/p95 of answer_question wall time (the whole answer path, embeddings included).

Halves: questions at even positions of dev_queries.jsonl (half A) were used to fit the
answerability weights (AnswerSettings; the features of every question are in the trace and in
bench/out/clapnq_answers.json, so --fit refits them without a run) and to choose the features;
half B was not looked at while fitting. Both are printed.
Data: ClapNQ (Apache-2.0; passages from Wikipedia, CC BY-SA), see ../shared/eval/README.md.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from retrieval_quality import CLAPNQ, KB, MAP_FILE, build_corpora, read_jsonl

from ingest.embeddings import SentenceTransformerEmbedder
from ingest.pipeline import IngestOptions, ingest
from service.db import graph_session
from service.question.runner import answer_question, stage_settings
from service.settings import Settings, project_root

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
    recalls, recalls_answered, cited_chars, precisions = [], [], [], []
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
            precisions.append(_gold_share(row["gold_sentences"], spans, text, cited_chars[-1]))
    return {
        "answerable": len(answerable),
        "unanswerable": len(unanswerable),
        "answered_share_of_answerable": round(tpr, 3),
        "abstained_share_of_unanswerable": round(tnr, 3),
        "balanced_accuracy": round((tpr + tnr) / 2, 3),
        "gold_sentence_recall": round(statistics.mean(recalls or [0.0]), 3),
        "gold_sentence_recall_answered": round(statistics.mean(recalls_answered or [0.0]), 3),
        "mean_cited_chars": round(statistics.mean(cited_chars or [0.0]), 1),
        "cited_gold_share": round(statistics.mean(precisions or [0.0]), 3),
    }


def _gold_share(
    golds: Sequence[str],
    spans: Mapping[str, Sequence[tuple[int, int]]],
    text: Mapping[str, str],
    cited: int,
) -> float:
    """Share of the cited characters that lie inside gold sentences (the precision side of the
    recall above: citing whole passages would raise recall and lower this)."""
    if not cited:
        return 0.0
    inside = 0
    for path, ranges in spans.items():
        gold = [(i, i + len(g)) for g in golds if (i := text[path].find(g)) >= 0]
        inside += sum(
            max(0, min(hi, g_hi) - max(lo, g_lo))
            for lo, hi in _union(ranges) for g_lo, g_hi in _union(gold)
        )  # fmt: skip
    return inside / cited


def quote_mismatches(responses: Sequence[Mapping[str, Any]]) -> int:
    bad = 0
    for response in responses:
        for citation in response["citations"]:
            source = (KB / citation["path"]).read_text(encoding="utf-8")
            if source[citation["startOffset"] : citation["endOffset"]] != citation["quote"]:
                bad += 1
    return bad


# AnswerabilityFeatures (trace names) -> the AnswerSettings weight each fit coefficient goes to.
WEIGHTS = {
    "paragraphCosine": "answerability_paragraph_weight",
    "topicCosine": "answerability_topic_weight",
    "sentenceCosine": "answerability_sentence_weight",
    "secondSentenceCosine": "answerability_second_sentence_weight",
    "residualSentenceCosine": "answerability_residual_sentence_weight",
    "sentenceCoverage": "answerability_sentence_coverage_weight",
    "paragraphCoverage": "answerability_paragraph_coverage_weight",
    "offTopicCoverage": "answerability_off_topic_coverage_weight",
    "answerTypeMissing": "answerability_answer_type_weight",
    "fulltextAgreement": "answerability_fulltext_weight",
    "vectorAgreement": "answerability_vector_weight",
    "documentMargin": "answerability_margin_weight",
    "hitsLift": "answerability_hits_lift_weight",
    "sentenceLift": "answerability_sentence_lift_weight",
    "bestHitCosine": "answerability_best_hit_weight",
}
# The features the fit weighs (the others keep weight 0), chosen by 5-fold cross-validation on
# half A: the topic cosine gained 0.016; later the residual sentence cosine 0.020-0.022 (50
# repeats, three seeds; paired standard error 0.016); every other feature less than its
# standard error.
FIT_FEATURES = ("paragraphCosine", "topicCosine", "sentenceCosine", "residualSentenceCosine")
FIT_L2 = 0.0  # ridge penalty on the standardised coefficients (four cosines need none)
FIT_ITERATIONS = 50  # Newton steps of the logistic fit (converges in about ten)


def fit_answerability(
    points: Sequence[tuple[Mapping[str, float], bool]],
    features: Sequence[str] = FIT_FEATURES,
    l2: float = FIT_L2,
) -> dict[str, float] | None:
    """L2-regularised logistic regression of answerable ~ features (Newton's method on the
    standardised features, coefficients mapped back to raw scale): the AnswerSettings weights,
    by field name, to fit on half A only."""
    rows = [(x, y) for x, y in points if all(f in x for f in features)]
    if not rows:
        return None
    data = np.array([[x[f] for f in features] for x, _ in rows], dtype=float)
    target = np.array([1.0 if y else 0.0 for _, y in rows])
    mean, spread = data.mean(axis=0), data.std(axis=0)
    spread[spread == 0] = 1.0
    design = np.c_[(data - mean) / spread, np.ones(len(data))]
    penalty = np.diag([l2] * len(features) + [0.0]) * len(data)
    coef = np.zeros(design.shape[1])
    for _ in range(FIT_ITERATIONS):
        p = 1.0 / (1.0 + np.exp(-design @ coef))
        gradient = design.T @ (p - target) + penalty @ coef
        hessian = design.T @ (design * (p * (1 - p))[:, None]) + penalty
        coef -= np.linalg.solve(hessian, gradient)
    raw = coef[:-1] / spread
    weights = {WEIGHTS[f]: round(float(w), 3) for f, w in zip(features, raw, strict=True)}
    weights["answerability_bias"] = round(float(coef[-1] - (raw * mean).sum()), 3)
    return weights


def answerability_points(
    rows: Sequence[Mapping[str, Any]], questions: Sequence[Mapping[str, Any]]
) -> list[tuple[dict[str, float], bool]]:
    """(features, answerable) of the questions whose trace has answerability inputs."""
    return [
        (dict(q["review"]["answerabilityInputs"]), bool(row["answerable"]))
        for row, q in zip(rows, questions, strict=True)
        if q["review"].get("answerabilityInputs")
    ]


def refit(rows: Sequence[Mapping[str, Any]]) -> None:
    """Fit the weights on half A of the last run's features and print them with the balanced
    accuracy of the gate alone (score >= 0.5 answers) on both halves; only half A is fitted."""
    questions = json.loads(RESULTS.read_text(encoding="utf-8"))["questions"]
    if [q["qid"] for q in questions] != [r["qid"] for r in rows[: len(questions)]]:
        raise SystemExit(f"{RESULTS} does not hold these questions in this order")
    fitted = fit_answerability(answerability_points(rows[::2], questions[::2]))
    if fitted is None:
        raise SystemExit("no answerability inputs in the last run")
    print("answerability weights fitted on half A:")
    for name, weight in fitted.items():
        print(f"    {name}: float = {weight}")
    for half, offset in (("A (fit)", 0), ("B (held out)", 1)):
        points = answerability_points(rows[offset::2], questions[offset::2])
        print(f"gate alone, half {half}: balanced accuracy {gate_accuracy(points, fitted):.3f}")


def gate_accuracy(
    points: Sequence[tuple[Mapping[str, float], bool]], weights: Mapping[str, float]
) -> float:
    """Balanced accuracy of answering when the logistic score is >= 0.5 (z >= 0)."""
    decided = [
        (weights["answerability_bias"] + sum(weights.get(WEIGHTS[f], 0.0) * v
                                             for f, v in x.items() if f in WEIGHTS) >= 0, y)
        for x, y in points
    ]  # fmt: skip
    answered = [d for d, y in decided if y]
    declined = [not d for d, y in decided if not y]
    return (sum(answered) / max(len(answered), 1) + sum(declined) / max(len(declined), 1)) / 2


def percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--eval-dir", type=Path,
                        default=project_root().parent / "shared" / "eval")  # fmt: skip
    parser.add_argument("--ingest", action="store_true", help="(re)build and ingest the corpus")
    parser.add_argument("--limit", type=int, default=0, help="first N questions only (smoke)")
    parser.add_argument(
        "--fit", action="store_true", help=f"no run: refit the weights from {RESULTS.name}"
    )
    args = parser.parse_args()
    eval_dir: Path = args.eval_dir.resolve()
    if args.fit:
        refit(read_jsonl(eval_dir / "clapnq" / "derived" / "dev_queries.jsonl"))
        return
    settings = Settings.from_env()
    if args.ingest or not MAP_FILE.is_file():
        build_corpora(eval_dir)
    mapping: dict[str, str] = json.loads(MAP_FILE.read_text(encoding="utf-8"))
    rows = read_jsonl(eval_dir / "clapnq" / "derived" / "dev_queries.jsonl")
    if args.limit:
        rows = rows[: args.limit]
    embedder = SentenceTransformerEmbedder(settings.embedding.for_queries())
    responses: list[dict[str, Any]] = []
    elapsed: list[float] = []
    with graph_session(settings) as graph:
        if args.ingest:
            ingest(graph, embedder, KB, IngestOptions(prune=True), settings.ingest)
        answer_question(
            graph, embedder, "warm up", scope=CLAPNQ, llm=False, **stage_settings(settings)
        )
        for index, row in enumerate(rows, 1):
            started = time.perf_counter()
            response = answer_question(
                graph,
                embedder,
                row["question"],
                scope=CLAPNQ,
                llm=False,
                **stage_settings(settings),
            )
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
    print(f"\nClapNQ dev, answer path without an LLM ({len(rows)} questions)")
    header = f"{'half':<14}{'n':>5}{'answered|ans':>14}{'abstained|unans':>17}{'bal.acc':>9}" \
             f"{'gold recall':>13}{'(answered)':>12}{'cited chars':>13}" \
             f"{'gold share':>12}"  # fmt: skip
    print(header)
    for name, m in report.items():
        print(
            f"{name:<14}{m['answerable'] + m['unanswerable']:>5}"
            f"{m['answered_share_of_answerable']:>14.3f}{m['abstained_share_of_unanswerable']:>17.3f}"
            f"{m['balanced_accuracy']:>9.3f}{m['gold_sentence_recall']:>13.3f}"
            f"{m['gold_sentence_recall_answered']:>12.3f}{m['mean_cited_chars']:>13.1f}"
            f"{m['cited_gold_share']:>12.3f}"
        )
    print(f"citations whose quote != source[start:end]: {mismatches}")
    # Answered answerable questions by answer profile (each composer quotes differently).
    profiles: dict[str, list[int]] = {}
    for i, (row, response) in enumerate(zip(rows, responses, strict=True)):
        if row["answerable"] and response["status"] != "abstained":
            profile = (response.get("structuredAnswer") or {}).get("profile") or "none"
            profiles.setdefault(profile, []).append(i)
    for profile, idx in sorted(profiles.items()):
        m = evaluate([rows[i] for i in idx], [responses[i] for i in idx], mapping)
        print(f"  {profile:<15} answered {len(idx):>4}  gold recall "
              f"{m['gold_sentence_recall']:.3f}  cited chars {m['mean_cited_chars']:.0f}  "
              f"gold share {m['cited_gold_share']:.3f}")  # fmt: skip
    print(f"answer path latency: p50 {percentile(elapsed, 0.5):.0f} ms, "
          f"p95 {percentile(elapsed, 0.95):.0f} ms")  # fmt: skip
    questions = [
        {"qid": row["qid"], "answerable": row["answerable"], "status": response["status"],
         "review": {k: response["trace"]["ragSufficiencyReview"].get(k)
                    for k in ("status", "reasons", "answerability", "answerabilityInputs")},
         "citations": len(response["citations"]), "ms": round(ms, 1),
         "cited": [[c["path"], c["startOffset"], c["endOffset"]] for c in response["citations"]],
         "profile": (response.get("structuredAnswer") or {}).get("profile")}
        for row, response, ms in zip(rows, responses, elapsed, strict=True)
    ]  # fmt: skip
    fitted = fit_answerability(answerability_points(rows[::2], questions[::2]))
    if fitted:
        print(f"answerability weights refitted on half A: {fitted}")
    RESULTS.write_text(json.dumps({"metrics": report, "quoteMismatches": mismatches,
                                   "fittedOnA": fitted,
                                   "latencyMs": {"p50": percentile(elapsed, 0.5),
                                                 "p95": percentile(elapsed, 0.95)},
                                   "questions": questions}, indent=1))  # fmt: skip


if __name__ == "__main__":
    main()
