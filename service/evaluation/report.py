"""Printing and saving what `kgs eval` measured."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import msgspec

from service.evaluation.scoring import Outcome, Report

__all__ = ["format_report", "print_report", "write_outcomes"]


def write_outcomes(path: Path, outcomes: Sequence[Outcome]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        for outcome in outcomes:
            out.write(json.dumps(msgspec.to_builtins(outcome), ensure_ascii=False) + "\n")


def format_report(r: Report) -> str:
    def figure(value: float | None) -> str:
        return "-" if value is None else f"{value:.3f}"

    recall = "  ".join(f"R{k} {figure(v)}" for k, v in r.recall.items())
    precision = "  ".join(f"P{k} {figure(v)}" for k, v in r.precision.items())
    statuses = ", ".join(f"{s} {n}" for s, n in r.statuses.items())
    return "\n".join([
        f"questions {r.questions} (answerable {r.answerable}, unanswerable {r.unanswerable})",
        f"recall      {recall}",
        f"precision   {precision}",
        f"ranking     MRR@10 {figure(r.mrr_at_10)}; evidence coverage "
        f"{figure(r.evidence_coverage)} of gold documents cited",
        f"refused     {figure(r.answerable_refused)} of answerable; "
        f"abstained {figure(r.unanswerable_abstained)} of unanswerable; "
        f"balanced abstention {figure(r.balanced_abstention)}",
        f"answer F1   {figure(r.answer_f1)} (answered only: {figure(r.answer_f1_answered)})",
        f"conflict    {r.conflict_rate:.3f} of questions",
        f"statuses    {statuses}",
        f"latency     p50 {r.latency_p50_ms:.1f} ms, p95 {r.latency_p95_ms:.1f} ms",
    ])  # fmt: skip


def print_report(r: Report, *, as_json: bool) -> None:
    if as_json:
        print(json.dumps(msgspec.to_builtins(r), indent=2))
    else:
        print(format_report(r))
