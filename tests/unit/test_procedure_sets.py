"""The procedure sets are sound (their README.md): every marker is on its page once, the step
markers in page order, each procedure asked in at least four wordings, and each unanswerable
how-to question names a product folder and a page that exist."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from service.evaluation.suites import ProcedureCase, UnanswerableHowTo, read_cases

DATA = Path(__file__).resolve().parents[1] / "data"
SETS = ("procedures", "procedures_holdout")


@pytest.mark.parametrize("name", SETS)
def test_markers_are_on_their_page_once_and_in_order(name: str) -> None:
    cases: list[ProcedureCase] = read_cases(DATA / name / "cases.jsonl", ProcedureCase)
    assert len({c.id for c in cases}) == len(cases)
    for case in cases:
        page = (DATA / name / "kb" / case.file).read_text("utf-8").lower()
        at = [page.find(m.lower()) for m in case.steps]
        assert all(page.count(m.lower()) == 1 for m in case.steps), case.id
        assert at == sorted(at), case.id
        for marker in (*case.prerequisites, *case.warnings):
            assert page.count(marker.lower()) == 1, (case.id, marker)
        assert all(3 <= len(m.split()) <= 8 and not re.search(r"[*_`|#]", m)
                   for m in case.steps), case.id  # fmt: skip
        assert len(set(case.wordings)) >= 4, case.id
        assert case.over_bound == (len(case.steps) > 15), case.id


@pytest.mark.parametrize("name", SETS)
def test_unanswerable_questions_name_real_pages(name: str) -> None:
    cases: list[UnanswerableHowTo] = read_cases(DATA / name / "unanswerable.jsonl",
                                                UnanswerableHowTo)  # fmt: skip
    assert len(cases) >= 20 and len({c.id for c in cases}) == len(cases)
    for case in cases:
        assert (DATA / name / "kb" / case.product_folder).is_dir(), case.id
        assert case.near_page is None or (DATA / name / "kb" / case.near_page).is_file()
