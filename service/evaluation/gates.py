"""Quality gates for `kgs eval --gate GATES.toml`: thresholds on a report's figures; a run that
misses one fails (docs/evaluation.md, "Quality gates"). Pure: a file's text in, verdicts out.

    # the lowest acceptable values
    [min]
    recall_at_5 = 0.90
    mrr_at_10 = 0.80
    evidence_coverage = 0.70
    unanswerable_abstained = 0.50

    # the highest acceptable values
    [max]
    answerable_refused = 0.10

A gate on a figure the run did not measure (no unanswerable question, no gold document) fails:
it was written to be checked.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Literal

import msgspec

from service.errors import KgsError
from service.evaluation.scoring import Report

__all__ = ["METRICS", "Gate", "GateError", "Verdict", "check_gates", "read_gates"]

Bound = Literal["min", "max"]


class GateError(KgsError, ValueError):
    """The gate file cannot be used; the message names the file and what is wrong."""


class Gate(msgspec.Struct, frozen=True, kw_only=True):
    metric: str
    bound: Bound
    threshold: float


class Verdict(msgspec.Struct, frozen=True, kw_only=True):
    gate: Gate
    value: float | None  # None: the run did not measure it
    passed: bool

    def describe(self) -> str:
        gate = self.gate
        sign = ">=" if gate.bound == "min" else "<="
        if self.value is None:
            return f"{gate.metric}: not measured by this run (gate {sign} {gate.threshold:g})"
        verdict = "ok" if self.passed else f"missed by {abs(self.value - gate.threshold):.4f}"
        return f"{gate.metric} {self.value:.4f} (gate {sign} {gate.threshold:g}): {verdict}"


def _figures(report: Report) -> dict[str, float | None]:
    return {
        **{f"recall_at_{k[1:]}": v for k, v in report.recall.items()},
        **{f"precision_at_{k[1:]}": v for k, v in report.precision.items()},
        "mrr_at_10": report.mrr_at_10,
        "evidence_coverage": report.evidence_coverage,
        "answerable_refused": report.answerable_refused,
        "unanswerable_abstained": report.unanswerable_abstained,
        "balanced_abstention": report.balanced_abstention,
        "answer_f1": report.answer_f1,
        "conflict_rate": report.conflict_rate,
    }


# The figures a gate may name: every share and mean of the report.
METRICS = (
    "recall_at_1", "recall_at_5", "recall_at_10", "precision_at_1", "precision_at_5",
    "precision_at_10", "mrr_at_10", "evidence_coverage", "answerable_refused",
    "unanswerable_abstained", "balanced_abstention", "answer_f1", "conflict_rate",
)  # fmt: skip


def read_gates(path: Path) -> list[Gate]:
    """The gates of a TOML file: tables `min` and `max`, each metric = a number in [0, 1]."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise GateError(f"{path}: {error.strerror or error}") from None
    except tomllib.TOMLDecodeError as error:
        raise GateError(f"{path}: not TOML: {error}") from None
    extra = set(data) - {"min", "max"}
    if extra:
        raise GateError(f"{path}: unknown table(s) {', '.join(sorted(extra))}: use [min], [max]")
    gates: list[Gate] = []
    for bound in ("min", "max"):
        table = data.get(bound, {})
        if not isinstance(table, dict):
            raise GateError(f"{path}: [{bound}] must be a table")
        for metric, threshold in table.items():
            if metric not in METRICS:
                raise GateError(f"{path}: [{bound}] {metric}: unknown metric; one of "
                                f"{', '.join(METRICS)}")  # fmt: skip
            if isinstance(threshold, bool) or not isinstance(threshold, int | float):
                raise GateError(f"{path}: [{bound}] {metric} must be a number")
            if not 0.0 <= threshold <= 1.0:
                raise GateError(f"{path}: [{bound}] {metric} = {threshold} is outside [0, 1]")
            gates.append(Gate(metric=metric, bound=bound, threshold=float(threshold)))
    if not gates:
        raise GateError(f"{path}: no gates (write [min] or [max] thresholds)")
    return gates


def check_gates(report: Report, gates: list[Gate]) -> list[Verdict]:
    figures = _figures(report)
    verdicts = []
    for gate in gates:
        value = figures[gate.metric]
        passed = value is not None and (
            value >= gate.threshold if gate.bound == "min" else value <= gate.threshold
        )
        verdicts.append(Verdict(gate=gate, value=value, passed=passed))
    return verdicts
