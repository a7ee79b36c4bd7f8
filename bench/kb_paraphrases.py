"""The shipped knowledge base with paraphrased questions, as a `kgs eval` question set.

    .venv/bin/python -m bench.kb_paraphrases [--out bench/data/kb_paraphrases.jsonl]

Every query and paraphrase of tests/probes/answers.yaml and pipeline.yaml (the unanswerable
cases at the end of answers.yaml included) becomes one question line. The question format has no
scope field, so the id carries it: `<scope>:<case id>:<n>`, n = 0 for the case's query and 1.. for
its paraphrases in file order. `answerable` is false when the case expects an abstention, and
`gold` is the case's documents_include. `answers` stays empty: a probe's answer_includes are
fragments, and token F1 against fragments would measure nothing useful.

The two files share cases (the same question is checked for its answer in one and its evidence
in the other), so a wording is written once per scope, under the first case that asks it, with
the gold documents of every case that asks it.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path

from msgspec import UnsetType

from service.evaluation.questions import EvalQuestion, write_questions
from service.probes.cases import load_cases, wording_key
from service.settings import project_root

__all__ = ["SUITES", "build_questions", "main"]

SUITES = ("answers.yaml", "pipeline.yaml")
OUT = Path("bench") / "data" / "kb_paraphrases.jsonl"


@dataclass
class _Entry:
    id: str
    question: str
    answerable: bool
    gold: list[str] = field(default_factory=list)


def build_questions(probes: Path) -> list[EvalQuestion]:
    """The question set from the probe files under `probes`, in file order."""
    entries: dict[tuple[str, str], _Entry] = {}
    for suite in SUITES:
        for case in load_cases(probes / suite).cases:
            answerable = case.expect.abstain is not True
            documents = case.expect.documents_include
            gold = [] if isinstance(documents, UnsetType) else list(documents)
            for n, question in enumerate((case.query, *case.wordings)):
                key = (case.scope, wording_key(question))
                entry = entries.setdefault(
                    key, _Entry(f"{case.scope}:{case.id}:{n}", question, answerable)
                )
                if entry.answerable != answerable:
                    raise ValueError(
                        f"{case.id}: {question!r} is answerable in one case and not in another"
                    )
                entry.gold.extend(path for path in gold if path not in entry.gold)
    return [
        EvalQuestion(id=e.id, question=e.question, answerable=e.answerable, gold=tuple(e.gold))
        for e in entries.values()
    ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=project_root() / OUT)
    args = parser.parse_args(argv)
    questions = build_questions(project_root() / "tests" / "probes")
    write_questions(args.out, questions)
    unanswerable = sum(1 for q in questions if not q.answerable)
    print(f"{args.out}: {len(questions)} questions, {unanswerable} unanswerable")


if __name__ == "__main__":
    main()
