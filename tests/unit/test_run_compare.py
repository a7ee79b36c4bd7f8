"""Two runs of the same questions compared answer by answer (service/evaluation/compare.py)."""

from __future__ import annotations

from typing import Any

import pytest

from service.evaluation.compare import RunMismatchError, changes, transitions


def _row(question: str, status: str, answer: str = "", **more: Any) -> dict[str, Any]:
    return {"id": question[:3], "question": question, "status": status, "answer": answer, **more}


def test_a_status_or_text_change_is_found_in_place() -> None:
    before = [_row("how long", "answered", "55 min", f1=0.5, answerable=True),
              _row("who runs it", "answered", "Priya"),
              _row("where is it", "partial", "in the hall", unanswerable=True)]  # fmt: skip
    after = [_row("how long", "partial", "55 min", f1=0.25, answerable=True),
             _row("who runs it", "answered", "Priya Mehta"),
             _row("where is it", "partial", "in the hall", unanswerable=True)]  # fmt: skip
    found = changes(before, after)
    assert [(c.position, c.before, c.after) for c in found] == [
        (0, "answered", "partial"), (1, "answered", "answered")
    ]  # fmt: skip
    assert (found[0].f1_before, found[0].f1_after, found[0].answerable) == (0.5, 0.25, True)
    assert found[1].f1_before is None and found[1].answerable is None
    assert [c.position for c in changes(before, after, text=False)] == [0]
    assert transitions(found) == {("answered", "partial"): 1}


def test_an_unanswerable_flag_reads_as_not_answerable() -> None:
    found = changes([_row("q", "answered", unanswerable=True)], [_row("q", "partial")])
    assert found[0].answerable is False


def test_runs_of_other_questions_are_refused() -> None:
    with pytest.raises(RunMismatchError, match="2 and 1"):
        changes([_row("a", "answered"), _row("b", "answered")], [_row("a", "answered")])
    with pytest.raises(RunMismatchError, match="asks 'a' and 'b'"):
        changes([_row("a", "answered")], [_row("b", "answered")])


def test_wordings_of_one_procedure_under_one_id_are_told_apart() -> None:
    before = [{"id": "descale", "question": w, "status": "answered", "answer": ""} for w in "xy"]
    after = [dict(before[0]), {**before[1], "status": "partial"}]
    assert [c.question for c in changes(before, after)] == ["y"]
