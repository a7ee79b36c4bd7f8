"""`kgs eval`: measure a question file as a client sees it (docs/evaluation.md)."""

from service.evaluation.questions import EvalFileError, EvalQuestion, read_questions
from service.evaluation.run import EvalRequestError, http_asker, outcome_of, run_questions
from service.evaluation.scoring import Outcome, Report, report, token_f1

__all__ = [
    "EvalFileError",
    "EvalQuestion",
    "EvalRequestError",
    "Outcome",
    "Report",
    "http_asker",
    "outcome_of",
    "read_questions",
    "report",
    "run_questions",
    "token_f1",
]
