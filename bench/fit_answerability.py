"""Fit the answerability gate across every public set, never one (AnswerSettings weights).

    .venv/bin/python bench/fit_answerability.py [--target-refusal 0.04] [--features a,b,...]

Reads the per-question outcomes that bench/public_sets.py wrote (bench/out/public/<set>.jsonl,
each with the trace's answerability inputs) and, when present, bench/out/public/kb.jsonl (the
shipped knowledge base's paraphrased probe questions). Only the fit half of each set (questions
at even positions) is used to choose anything:

- the weights: an L2-regularised logistic regression of answerable ~ features over the pooled
  fit halves, every set weighing the same and, within a set, both classes the same (sets with
  answerable questions only, the manuals, pull towards answering);
- the threshold: the highest one at which no fit half refuses more than `--target-refusal` of
  its answerable questions at this gate (the other gates refuse a few more end to end).

Then it prints, per set, the gate's refusal of answerable questions, its abstention on
unanswerable ones and their balanced accuracy on the fit half, on the report half, and with the
set left out of the fit entirely (leave-one-set-out: weights and threshold fitted on the other
sets' fit halves). The figures that count are the end-to-end ones of bench/public_sets.py after
the weights are set; these are the gate's alone.

`--calibrate-only` keeps the weights the outcomes were answered with (their recorded scores)
and chooses the threshold alone, the same way. That is what AnswerSettings uses: refitted
weights did worse on the held-out sets (docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence

import msgspec
import numpy as np

from service.settings import project_root

OUT = project_root() / "bench" / "out" / "public"
FEATURES = (
    "paragraphCosine",
    "sentenceCosine",
    "residualSentenceCosine",
    "topicCosine",
    "sentenceCoverage",
    "paragraphCoverage",
    "answerTypeMissing",
)
L2 = 0.01
HELD_OUT = frozenset({"kb"})
ITERATIONS = 30


class Point(msgspec.Struct, frozen=True):
    dataset: str
    fit: bool  # in the fit half
    answerable: bool
    x: tuple[float, ...]


def load(features: Sequence[str]) -> list[Point]:
    points = []
    for path in sorted(OUT.glob("*.jsonl")):
        with path.open(encoding="utf-8") as lines:
            for position, line in enumerate(lines):
                outcome = json.loads(line)
                inputs = outcome.get("answerability_inputs")
                if not inputs:
                    continue  # no evidence at all: refused before the gate, nothing to fit
                # The shipped knowledge base's paraphrases are held out entirely (a case's
                # wordings sit on consecutive lines: halves would share cases).
                fit_half = position % 2 == 0 and path.stem not in HELD_OUT
                points.append(Point(path.stem, fit_half, bool(outcome["answerable"]),
                                    tuple(float(inputs[f]) for f in features)))  # fmt: skip
    return points


def weights_of(points: Sequence[Point]) -> np.ndarray:
    """Every set weighs the same; within a set each class the same."""
    groups: dict[tuple[str, bool], int] = {}
    for p in points:
        groups[(p.dataset, p.answerable)] = groups.get((p.dataset, p.answerable), 0) + 1
    classes = {d: sum(1 for (e, _) in groups if e == d) for d, _ in groups}
    return np.array([1.0 / (classes[p.dataset] * groups[(p.dataset, p.answerable)])
                     for p in points])  # fmt: skip


def fit(points: Sequence[Point], l2: float = L2) -> tuple[np.ndarray, float]:
    """Raw-scale coefficients and bias of the weighted, regularised logistic regression."""
    data = np.array([p.x for p in points])
    target = np.array([1.0 if p.answerable else 0.0 for p in points])
    weight = weights_of(points)
    weight = weight / weight.sum() * len(points)
    mean, spread = data.mean(axis=0), data.std(axis=0)
    spread[spread == 0] = 1.0
    design = np.c_[(data - mean) / spread, np.ones(len(data))]
    penalty = np.diag([l2] * data.shape[1] + [0.0]) * len(data)
    coef = np.zeros(design.shape[1])
    for _ in range(ITERATIONS):
        p = 1.0 / (1.0 + np.exp(-design @ coef))
        gradient = design.T @ (weight * (p - target)) + penalty @ coef
        hessian = design.T @ (design * (weight * p * (1 - p))[:, None]) + penalty
        coef -= np.linalg.solve(hessian, gradient)
    raw = coef[:-1] / spread
    return raw, float(coef[-1] - (raw * mean).sum())


def scores(points: Sequence[Point], raw: np.ndarray, bias: float) -> np.ndarray:
    z = np.array([p.x for p in points]) @ raw + bias
    return np.asarray(1.0 / (1.0 + np.exp(-z)))


def threshold(points: Sequence[Point], raw: np.ndarray, bias: float, refusal: float) -> float:
    """The highest threshold at which no set refuses more than `refusal` of its answerable."""
    best = 1.0
    for dataset in {p.dataset for p in points}:
        mine = [p for p in points if p.dataset == dataset and p.answerable]
        if not mine:
            continue
        values = np.sort(scores(mine, raw, bias))
        allowed = int(np.floor(refusal * len(values)))  # this many may fall below
        best = min(best, float(values[allowed]) - 1e-9)
    return max(best, 0.0)


def figures(points: Sequence[Point], raw: np.ndarray, bias: float, t: float) -> str:
    if not points:
        return "-"
    values = scores(points, raw, bias)
    answerable = [v for v, p in zip(values, points, strict=True) if p.answerable]
    impossible = [v for v, p in zip(values, points, strict=True) if not p.answerable]
    refused = sum(1 for v in answerable if v < t) / len(answerable) if answerable else None
    abstained = sum(1 for v in impossible if v < t) / len(impossible) if impossible else None
    ba = (1 - refused + abstained) / 2 if refused is not None and abstained is not None else None

    def f(value: float | None) -> str:
        return "    -" if value is None else f"{value:5.3f}"

    return f"refused {f(refused)}  abstained {f(abstained)}  BA {f(ba)}  (n={len(points)})"


def report(points: Sequence[Point], features: Sequence[str], refusal: float) -> Mapping[str, float]:
    fitting = [p for p in points if p.fit]
    raw, bias = fit(fitting)
    t = threshold(fitting, raw, bias, refusal)
    print(f"threshold {t:.4f} (highest with every fit half refusing <= {refusal:.0%})")
    for dataset in sorted({p.dataset for p in points}):
        mine = [p for p in points if p.dataset == dataset]
        others = [p for p in fitting if p.dataset != dataset]
        o_raw, o_bias = fit(others)
        o_t = threshold(others, o_raw, o_bias, refusal)
        print(f"{dataset:<16} fit    {figures([p for p in mine if p.fit], raw, bias, t)}")
        print(f"{'':<16} report {figures([p for p in mine if not p.fit], raw, bias, t)}")
        print(f"{'':<16} left out of the fit: {figures(mine, o_raw, o_bias, o_t)}")
    names = {f: "answerability_" + _snake(f).removesuffix("_cosine") for f in features}
    print("\nAnswerSettings (raw scale; threshold as answerability_threshold):")
    result = {names[f]: round(float(w), 3) for f, w in zip(features, raw, strict=True)}
    result["answerability_bias"] = round(bias, 3)
    result["answerability_threshold"] = round(t, 4)
    for key, value in result.items():
        print(f"  {key} = {value}")
    return result


def calibrate(refusal: float) -> None:
    """Thresholds only, for the weights the outcomes were answered with: their recorded
    answerability scores (a question without one passes the gate)."""
    scored: dict[str, list[tuple[bool, bool, float]]] = {}
    for path in sorted(OUT.glob("*.jsonl")):
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        scored[path.stem] = [
            (i % 2 == 0 and path.stem not in HELD_OUT, bool(r["answerable"]),
             1.0 if r["answerability"] is None else float(r["answerability"]))
            for i, r in enumerate(rows)
        ]  # fmt: skip
    t = 1.0
    for rows in scored.values():
        values = sorted(a for fit_half, answerable, a in rows if fit_half and answerable)
        if values:
            t = min(t, values[int(np.floor(refusal * len(values)))] - 1e-9)
    print(
        f"answerability_threshold {t:.4f} (highest with every fit half refusing <= {refusal:.0%})"
    )
    for name, rows in scored.items():
        for label, part in (("fit", [r for r in rows if r[0]]),
                            ("report", [r for r in rows if not r[0]])):  # fmt: skip
            yes = [a for _, answerable, a in part if answerable]
            no = [a for _, answerable, a in part if not answerable]
            if not yes:
                continue
            refused = sum(a < t for a in yes) / len(yes)
            ba = f"{(1 - refused + sum(a < t for a in no) / len(no)) / 2:.3f}" if no else "-"
            print(f"  {name:<16} {label:<6} refused {refused:.3f}  BA {ba}  (n={len(part)})")


def _snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in name)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--target-refusal", type=float, default=0.05)
    parser.add_argument("--features", default=",".join(FEATURES))
    parser.add_argument(
        "--calibrate-only", action="store_true",
        help="keep the weights the outcomes were answered with; choose the threshold only",
    )  # fmt: skip
    args = parser.parse_args(argv)
    if args.calibrate_only:
        calibrate(args.target_refusal)
        return 0
    features = [f for f in args.features.split(",") if f]
    points = load(features)
    if not points:
        print(f"no outcomes under {OUT}: run bench/public_sets.py first", file=sys.stderr)
        return 1
    report(points, features, args.target_refusal)
    return 0


if __name__ == "__main__":
    sys.exit(main())
