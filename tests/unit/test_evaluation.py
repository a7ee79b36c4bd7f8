"""`kgs eval`'s question file and scoring, without a database."""

from pathlib import Path

import pytest

from service.evaluation import EvalFileError, EvalQuestion, outcome_of, read_questions, report
from service.evaluation.scoring import percentile, token_f1


def _file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "qa.jsonl"
    path.write_text(text, encoding="utf-8")
    return path


def test_questions_get_line_ids_and_defaults(tmp_path: Path) -> None:
    path = _file(
        tmp_path, '{"question": "a?"}\n\n{"question": "b?", "id": "x", "answerable": false}\n'
    )
    first, second = read_questions(path)
    assert (first.id, first.answerable, first.gold) == ("1", True, ())
    assert (second.id, second.answerable) == ("x", False)
    assert len(read_questions(path, limit=1)) == 1


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"question": "a?"}\n{"question": 3}\n', "qa.jsonl:2"),
        ('{"question": "a?", "gold": "x.md"}\n', "qa.jsonl:1"),
        ('{"question": "a?", "extra": 1}\n', "extra"),
        ('{"question": "  "}\n', "empty"),
        ('{"question": "a?", "answerable": false, "answers": ["x"]}\n', "unanswerable"),
        ('{"question": "a?", "id": "1"}\n{"question": "b?", "id": "1"}\n', "repeat"),
        ("\n", "no questions"),
        ("{not json\n", "qa.jsonl:1"),
    ],
)
def test_bad_question_files_are_refused_with_their_line(
    tmp_path: Path, text: str, message: str
) -> None:
    with pytest.raises(EvalFileError, match=message):
        read_questions(_file(tmp_path, text))


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(EvalFileError, match="no such file"):
        read_questions(tmp_path / "nope.jsonl")


def test_token_f1_normalises_like_squad() -> None:
    assert token_f1("The Eiffel Tower!", ["eiffel tower"]) == 1.0
    assert token_f1("in Paris, France", ["Paris"]) == pytest.approx(0.5)  # P 1/3, R 1
    assert token_f1("nothing alike", ["Paris", "France"]) == 0.0
    assert token_f1("France", ["Paris", "France"]) == 1.0  # the best gold answer counts


def _response(status: str, answer: str, paths: list[str]) -> dict[str, object]:
    return {
        "status": status,
        "answer": answer,
        "citations": [],
        "trace": {
            "retrieval": {"documents": [{"path": p} for p in paths], "hits": []},
            "ragSufficiencyReview": {"answerability": 0.7, "reasons": ["ok"]},
        },
    }


def test_outcomes_and_report() -> None:
    answerable = EvalQuestion(id="a", question="q", answers=("red apple",), gold=("s/b.md",))
    other = EvalQuestion(id="b", question="q2", answers=("pear",), gold=("s/z.md",))
    impossible = EvalQuestion(id="c", question="q3", answerable=False)
    outcomes = [
        outcome_of(answerable, _response("answered", "a red apple", ["s/a.md", "./s/b.md"]), 10),
        outcome_of(other, _response("abstained", "pear, I could not", ["s/a.md"]), 30),
        outcome_of(impossible, _response("abstained", "no", []), 20),
    ]
    assert outcomes[0].gold_rank == 2 and outcomes[0].f1 == 1.0
    assert outcomes[1].gold_rank is None and outcomes[1].f1 == 0.0  # a refusal scores nothing
    r = report(outcomes)
    assert r.recall == {"@1": 0.0, "@5": 0.5, "@10": 0.5}
    assert r.answerable_refused == 0.5 and r.unanswerable_abstained == 1.0
    assert r.balanced_abstention == 0.75
    assert r.answer_f1 == 0.5 and r.answer_f1_answered == 1.0
    assert r.statuses == {"abstained": 2, "answered": 1}
    assert r.latency_p50_ms == 20.0


def test_report_without_unanswerable_questions_has_no_balanced_figure() -> None:
    q = EvalQuestion(id="a", question="q")
    r = report([outcome_of(q, _response("conflict", "x", []), 5)])
    assert r.balanced_abstention is None and r.answer_f1 is None and r.conflict_rate == 1.0


def test_percentile_is_nearest_rank() -> None:
    assert percentile([], 0.5) == 0.0
    assert percentile([5.0, 1.0, 3.0], 0.5) == 3.0
    assert percentile(list(map(float, range(1, 101))), 0.95) == 95.0
