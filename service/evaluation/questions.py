"""The question file of `kgs eval`: JSON Lines, one question per line (docs/evaluation.md).

    {"id": "q1", "question": "how is the prism aligned?", "answerable": true,
     "answers": ["Loosen the two screws ..."], "gold": ["opticalbench/prism-alignment.md"]}

Only `question` is required. `answerable` defaults to true; `answers` are gold answer texts for
token F1; `gold` are the paths (as citations name them) of documents that answer the question,
for recall, precision, MRR and evidence coverage; `scope` asks the question in that scope
(a file may span several). Every line is checked before anything runs, so a bad file costs nothing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import msgspec

from service.errors import KgsError

__all__ = ["EvalFileError", "EvalQuestion", "read_questions"]

MAX_QUESTIONS = 100_000  # a file this long is almost certainly not a question set


class EvalFileError(KgsError, ValueError):
    """The question file cannot be used; the message names the file and line."""


class EvalQuestion(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    question: Annotated[str, msgspec.Meta(min_length=1)]
    id: str | None = None
    answerable: bool = True
    answers: tuple[str, ...] = ()
    gold: tuple[str, ...] = ()
    scope: str | None = None  # the scope to ask; overrides `kgs eval --scope`


def read_questions(path: Path, *, limit: int | None = None) -> list[EvalQuestion]:
    """Every question of the file (the first `limit` with a limit), ids filled in by line."""
    if not path.is_file():
        raise EvalFileError(f"{path}: no such file")
    questions: list[EvalQuestion] = []
    decoder = msgspec.json.Decoder(EvalQuestion)
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                item = decoder.decode(line)
            except (msgspec.ValidationError, msgspec.DecodeError) as error:
                raise EvalFileError(f"{path}:{number}: {error}") from None
            if not item.question.strip():
                raise EvalFileError(f"{path}:{number}: the question is empty")
            if not item.answerable and (item.answers or item.gold):
                raise EvalFileError(
                    f"{path}:{number}: an unanswerable question has no answers or gold documents"
                )
            questions.append(msgspec.structs.replace(item, id=item.id or str(number)))
            if len(questions) > MAX_QUESTIONS:
                raise EvalFileError(f"{path}: more than {MAX_QUESTIONS} questions")
            if limit is not None and len(questions) >= limit:
                break
    if not questions:
        raise EvalFileError(f"{path}: no questions")
    ids = [q.id for q in questions]
    if len(set(ids)) != len(ids):
        raise EvalFileError(f"{path}: question ids repeat")
    return questions


def write_questions(path: Path, questions: list[EvalQuestion]) -> None:
    """The inverse of read_questions (the benches write their sets with it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        for q in questions:
            out.write(json.dumps(msgspec.to_builtins(q), ensure_ascii=False) + "\n")
