"""The checks a review request passes before anything is read (HTTP 400 otherwise)."""

from __future__ import annotations

from collections.abc import Sequence

from service.errors import KgsError
from service.settings import ReviewSettings

__all__ = ["MAX_REFERENCE_CHARS", "ReviewInputError", "check_request"]

MAX_REFERENCE_CHARS = 400  # a document id or a path with its scope (paths: at most 255 + scope)


class ReviewInputError(KgsError, ValueError):
    http_status = 400


def check_request(
    documents: Sequence[str],
    questions: Sequence[str],
    settings: ReviewSettings,
    max_question_chars: int,
) -> None:
    """ReviewInputError naming the first problem: no documents or too many, a blank or
    overlong reference, no questions or too many, a blank or overlong question."""
    if not documents:
        raise ReviewInputError("documents is empty: name at least one document (id or path)")
    if len(documents) > settings.max_documents:
        raise ReviewInputError(
            f"{len(documents)} documents: a review binds at most {settings.max_documents} "
            "(KGS_REVIEW_MAX_DOCUMENTS)"
        )
    for index, ref in enumerate(documents):
        if not ref.strip() or len(ref) > MAX_REFERENCE_CHARS:
            raise ReviewInputError(
                f"documents[{index}] must be a document id or path of 1 to "
                f"{MAX_REFERENCE_CHARS} characters"
            )
    if not questions:
        raise ReviewInputError("questions is empty: ask at least one question")
    if len(questions) > settings.max_questions:
        raise ReviewInputError(
            f"{len(questions)} questions: a review answers at most {settings.max_questions} "
            "(KGS_REVIEW_MAX_QUESTIONS)"
        )
    for index, question in enumerate(questions):
        if not question.strip():
            raise ReviewInputError(f"questions[{index}] is empty")
        if len(question) > max_question_chars:
            raise ReviewInputError(
                f"questions[{index}] is longer than {max_question_chars} characters "
                "(KGS_API_MAX_QUERY_CHARS)"
            )
