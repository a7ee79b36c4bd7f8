"""What changed between two runs of the same questions: the answers whose status or text moved.

A rule is kept or dropped on which answers it changes, not only on the figures: a share that
holds still can hide one question gained and one lost. Rows are matched by position (a suite
asks one procedure in several wordings under one id), and both runs must hold the same
questions in the same order, which every bench writes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from service.errors import KgsError

__all__ = ["Change", "RunMismatchError", "changes", "transitions"]

Row = Mapping[str, Any]


class RunMismatchError(KgsError, ValueError):
    """The two runs did not ask the same questions in the same order."""


class Change(msgspec.Struct, frozen=True, kw_only=True):
    position: int  # 0-based line of the outcome file (even: the public sets' fit half)
    id: str
    question: str
    answerable: bool | None  # None when the suite does not say
    before: str  # status
    after: str
    f1_before: float | None  # token F1, where the run scored it
    f1_after: float | None


def changes(before: Sequence[Row], after: Sequence[Row], *, text: bool = True) -> list[Change]:
    """The rows whose status changed, or (with `text`) whose answer text did."""
    if len(before) != len(after):
        raise RunMismatchError(f"the runs hold {len(before)} and {len(after)} answers")
    found = []
    for position, (a, b) in enumerate(zip(before, after, strict=True)):
        question = _question(a)
        if question != _question(b):
            raise RunMismatchError(f"answer {position} asks {question!r} and {_question(b)!r}")
        if a.get("status") == b.get("status") and (not text or a.get("answer") == b.get("answer")):
            continue
        answerable = a.get("answerable")
        if answerable is None and "unanswerable" in a:
            answerable = not a["unanswerable"]
        found.append(
            Change(
                position=position, id=str(a.get("id", position)), question=question,
                answerable=answerable, before=str(a.get("status")), after=str(b.get("status")),
                f1_before=_f1(a), f1_after=_f1(b),
            )
        )  # fmt: skip
    return found


def transitions(found: Sequence[Change]) -> Counter[tuple[str, str]]:
    """(status before, status after) -> how many answers moved so, text-only changes left out."""
    return Counter((c.before, c.after) for c in found if c.before != c.after)


def _question(row: Row) -> str:
    return str(row.get("question", row.get("wording", "")))


def _f1(row: Row) -> float | None:
    value = row.get("f1")
    return float(value) if isinstance(value, int | float) else None
