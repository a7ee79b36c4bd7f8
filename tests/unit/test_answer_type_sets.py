"""The answer-type sets are sound: each case's page exists, an answerable case's value is on
its page, and each set holds as many answerable as unanswerable questions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / "data"
SETS = (
    "answer_types",
    "answer_types_holdout",
    "answer_types_holdout2",
    "answer_types_holdout3",
    "answer_types_holdout4",
    "answer_types_holdout5",
    "answer_types_holdout6",
)


@pytest.mark.parametrize("name", SETS)
def test_every_value_is_on_its_page(name: str) -> None:
    lines = (DATA / name / "cases.jsonl").read_text("utf-8").splitlines()
    cases = [json.loads(line) for line in lines if line.strip()]
    for case in cases:
        page = (DATA / name / "kb" / case["file"]).read_text("utf-8").lower()
        if case["answerable"]:
            assert case["value"].lower() in page, case["id"]
        else:
            assert case.get("missing"), case["id"]
    answerable = sum(1 for c in cases if c["answerable"])
    assert answerable == len(cases) - answerable
    assert len({c["id"] for c in cases}) == len(cases)
