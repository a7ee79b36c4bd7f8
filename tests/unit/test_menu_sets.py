"""The menu sets are sound (their README.md): every label of a question's menu is on its page
followed by a colon, the asked labels are of that menu, and each page is asked about one
option, two options and its whole menu."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from service.evaluation.suites import MenuCase, read_cases

DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.mark.parametrize("name", ["menus", "menus_b", "menus_c"])
def test_menu_questions_name_labels_their_page_holds(name: str) -> None:
    cases: list[MenuCase] = read_cases(DATA / name / "questions.jsonl", MenuCase)
    assert len(cases) >= 36 and len({c.id for c in cases}) == len(cases)
    for case in cases:
        page = (DATA / name / "kb" / case.file).read_text("utf-8")
        assert all(f"{label}:" in page for label in case.menu), case.id
        assert set(case.asked) <= set(case.menu), case.id
    kinds = Counter((c.file, min(len(c.asked), 3) if c.asked != c.menu else 0) for c in cases)
    files = {c.file for c in cases}
    assert all(kinds[(f, k)] >= 1 for f in files for k in (0, 1, 2)), kinds
