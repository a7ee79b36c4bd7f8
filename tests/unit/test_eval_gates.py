"""Quality gates and the ranking figures they read, as pure code."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.evaluation.gates import GateError, check_gates, read_gates
from service.evaluation.scoring import Outcome, report


def _outcome(ranks: tuple[int, ...], *, gold: int = 1, cited: int = 0,
             status: str = "answered", answerable: bool = True) -> Outcome:  # fmt: skip
    return Outcome(
        id="q", question="q", answerable=answerable, status=status, answer="a", documents=(),
        gold_rank=ranks[0] if ranks else None, has_gold=answerable and gold > 0,
        gold_ranks=ranks, gold_count=gold if answerable else 0, gold_cited=cited, f1=None,
        latency_ms=1.0,
    )  # fmt: skip


def test_precision_mrr_and_evidence_coverage() -> None:
    measured = report([
        _outcome((1, 3), gold=2, cited=2),
        _outcome((12,), cited=0),
        _outcome((), status="abstained"),
        _outcome((), answerable=False, status="abstained"),
    ])  # fmt: skip
    assert measured.precision["@1"] == round((1 + 0 + 0) / 3, 4)
    assert measured.precision["@5"] == round((2 / 5) / 3, 4)
    assert measured.mrr_at_10 == round(1 / 3, 4)  # rank 12 counts 0
    assert measured.evidence_coverage == 0.5  # 2 of 4 gold documents cited
    assert measured.unanswerable_abstained == 1.0


def test_gates_pass_fail_and_unmeasured(tmp_path: Path) -> None:
    gates = tmp_path / "gate.toml"
    gates.write_text("[min]\nrecall_at_1 = 0.6\nunanswerable_abstained = 0.5\n"
                     "[max]\nanswerable_refused = 0.1\n")  # fmt: skip
    measured = report([_outcome((1,)), _outcome((2,)), _outcome((), status="abstained")])
    verdicts = {v.gate.metric: v for v in check_gates(measured, read_gates(gates))}
    assert not verdicts["recall_at_1"].passed  # 1 of 3
    assert "missed by 0.2667" in verdicts["recall_at_1"].describe()
    assert not verdicts["unanswerable_abstained"].passed  # no unanswerable question
    assert "not measured" in verdicts["unanswerable_abstained"].describe()
    assert not verdicts["answerable_refused"].passed  # 1 of 3 refused


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("[min]\nrecal_at_5 = 0.9\n", "unknown metric"),
        ("[min]\nrecall_at_5 = 1.5\n", "outside [0, 1]"),
        ("[min]\nrecall_at_5 = 'high'\n", "must be a number"),
        ("[least]\nrecall_at_5 = 0.9\n", "unknown table"),
        ("[min\n", "not TOML"),
        ("", "no gates"),
    ],
)
def test_a_bad_gate_file_says_what_is_wrong(tmp_path: Path, text: str, says: str) -> None:
    path = tmp_path / "gate.toml"
    path.write_text(text)
    with pytest.raises(GateError, match=says.replace("[", r"\[")):
        read_gates(path)
