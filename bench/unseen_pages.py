"""Answers on plain pages nobody tuned for: the suites of tests/data/, asked as a client asks.

    .venv/bin/python bench/unseen_pages.py [--suites procedures,answer_types,...,manuals]
                                           [--skip-ingest] [--url http://127.0.0.1:8000]

Each suite's `kb/` is ingested as one scope (`unseen-<suite>`, each manual its own scope) the
way a user would (`kgs ingest kb --scope S`), then every question goes through the same answer
path as `kgs ask` (in process, or a running service's POST /v1/query with --url). Figures:

- procedures: answers with every step in order (per layout), and `answered` among procedures
  within the step bound (tests/data/procedures, 4+ wordings each, one with a typo);
  procedures_holdout: the same on a second set (tests/data/procedures_holdout), written by
  someone who never saw the answer path, to report (docs/benchmarks.md says where its figures
  decided something); both sets also count how-to questions about tasks no page describes
  (unanswerable.jsonl) that come back `answered`;
- answer_types: answerable questions `answered`, unanswerable ones `answered` (must be 0: no
  value of the asked type), and how often the gold value is quoted;
- answer_types_holdout, _holdout2 ... _holdout6: the same figures on sets written
  without sight of the answer path's rules (their README.md); docs/benchmarks.md says which of
  them a rule was ever chosen on;
- injection: relays of any part of an attack, and real questions refused;
- manuals: `conflict` among all answers (the manuals are consistent), statuses, and token F1
  against the gold sentences beside the plain extract of the gold page (its first 4 sentences);
- menus: how-to questions about one option, two options or a whole settings menu
  (tests/data/menus, written without sight of the answer path): answers quoting every asked
  option, and options of the menu quoted that were not asked about; menus_b and menus_c: two
  more such sets by other writers (docs/benchmarks.md says which a rule was chosen on).

The suites were written before the answer path ran on them, but later rules were chosen by
reading their failures (docs/benchmarks.md says which).
Outcomes go to bench/out/unseen/<suite>.jsonl, the table to bench/out/unseen_pages.json.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from ingest.embeddings import SentenceTransformerEmbedder
from ingest.pipeline import IngestOptions, ingest
from service.db import graph_session
from service.evaluation import http_asker
from service.evaluation.scoring import token_f1
from service.evaluation.suites import (
    InjectionCase,
    MenuCase,
    ProcedureCase,
    TypedCase,
    UnanswerableHowTo,
    quoted_labels,
    read_cases,
    relayed,
    steps_in_order,
)
from service.question.runner import answer_question, stage_settings
from service.settings import Settings, project_root
from service.text.spans import split_sentences

DATA = project_root() / "tests" / "data"
OUT = project_root() / "bench" / "out"
BLIND_SETS = (
    "answer_types_holdout",
    "answer_types_holdout2",
    "answer_types_holdout3",
    "answer_types_holdout4",
    "answer_types_holdout5",
    "answer_types_holdout6",
)
MENU_SETS = ("menus", "menus_b", "menus_c")
SUITES = (
    "procedures", "procedures_holdout", "answer_types", *BLIND_SETS, "injection", "manuals",
    *MENU_SETS,
)  # fmt: skip
MANUALS = ("phone", "printer", "heatpump")
TOP_K = 10
Ask = Callable[[str, str], dict[str, Any]]


def _share(part: int, whole: int) -> float:
    return round(part / whole, 3) if whole else 0.0


def procedures(ask: Ask, scope: str, folder: str = "procedures") -> dict[str, Any]:
    cases: list[ProcedureCase] = read_cases(DATA / folder / "cases.jsonl", ProcedureCase)
    rows = []
    for case in cases:
        for wording in case.wordings:
            response = ask(wording, scope)
            found, whole = steps_in_order(response["answer"], case.steps[:15])
            rows.append({"id": case.id, "layout": case.layout, "question": wording,
                         "status": response["status"], "found": found,
                         "steps": min(len(case.steps), 15), "whole": whole,
                         "overBound": case.over_bound, "answer": response["answer"]})  # fmt: skip
    within = [r for r in rows if not r["overBound"]]
    layouts = sorted({r["layout"] for r in rows})
    unanswerable = []
    if (DATA / folder / "unanswerable.jsonl").exists():
        for case in read_cases(DATA / folder / "unanswerable.jsonl", UnanswerableHowTo):
            response = ask(case.question, scope)
            unanswerable.append({"id": case.id, "unanswerable": True,
                                 "question": case.question, "status": response["status"],
                                 "answer": response["answer"]})  # fmt: skip
    return {
        "answers": len(rows),
        "procedures": len(cases),
        "whole": _share(sum(r["whole"] for r in rows), len(rows)),
        "wholeByLayout": {
            lay: _share(
                sum(r["whole"] for r in rows if r["layout"] == lay),
                sum(1 for r in rows if r["layout"] == lay),
            )
            for lay in layouts
        },
        "answeredWithinBound": _share(sum(r["status"] == "answered" for r in within), len(within)),
        "overBoundPartial": _share(
            sum(r["status"] == "partial" for r in rows if r["overBound"]),
            sum(1 for r in rows if r["overBound"]),
        ),
        "statuses": dict(Counter(r["status"] for r in rows)),
        # How-to questions about tasks no page describes: `answered` must stay 0.
        "unanswerable": len(unanswerable),
        "unanswerableAnswered": _share(
            sum(r["status"] == "answered" for r in unanswerable), len(unanswerable)
        ),
        "unanswerableStatuses": dict(Counter(r["status"] for r in unanswerable)),
        "_rows": rows + unanswerable,
    }


def answer_types(ask: Ask, scope: str, folder: str = "answer_types") -> dict[str, Any]:
    cases: list[TypedCase] = read_cases(DATA / folder / "cases.jsonl", TypedCase)
    rows = []
    for case in cases:
        response = ask(case.question, scope)
        rows.append({"id": case.id, "type": case.type, "answerable": case.answerable,
                     "question": case.question, "status": response["status"],
                     "quotesValue": bool(case.value) and case.value.lower()
                     in response["answer"].lower(), "answer": response["answer"]})  # fmt: skip
    yes = [r for r in rows if r["answerable"]]
    no = [r for r in rows if not r["answerable"]]
    return {
        "questions": len(rows),
        "answerableAnswered": _share(sum(r["status"] == "answered" for r in yes), len(yes)),
        "answerableQuotesValue": _share(sum(r["quotesValue"] for r in yes), len(yes)),
        "unanswerableAnswered": _share(sum(r["status"] == "answered" for r in no), len(no)),
        "unanswerableStatuses": dict(Counter(r["status"] for r in no)),
        "_rows": rows,
    }


def injection(ask: Ask, scope: str) -> dict[str, Any]:
    cases: list[InjectionCase] = read_cases(
        DATA / "injection_multilingual" / "cases.jsonl", InjectionCase
    )
    rows = []
    for case in cases:
        response = ask(case.question, scope)
        relay = relayed(response["answer"], case)
        rows.append({"id": case.id, "language": case.language, "placement": case.placement,
                     "status": response["status"], "relay": relay,
                     "answers": case.answer.lower() in response["answer"].lower(),
                     "answer": response["answer"]})  # fmt: skip
    return {
        "attacks": len(rows),
        "languages": len({r["language"] for r in rows}),
        "relays": sum(bool(r["relay"]) for r in rows),
        "refused": sum(r["status"] == "abstained" for r in rows),
        "answerQuoted": _share(sum(r["answers"] for r in rows), len(rows)),
        "relayedBy": dict(Counter(r["placement"] for r in rows if r["relay"])),
        "_rows": rows,
    }


def manuals(ask: Ask, names: Sequence[str]) -> dict[str, Any]:
    rows = []
    for name in names:
        folder = DATA / "consistent_manuals" / name
        for line in (folder / "questions.jsonl").read_text("utf-8").splitlines():
            if not line.strip():
                continue
            q = json.loads(line)
            response = ask(q["question"], f"unseen-{name}")
            gold = [g.split("/", 1)[1] for g in q.get("gold", [])]
            extract = ""
            if gold:
                text = (folder / "kb" / gold[0]).read_text("utf-8").split("\n", 1)[-1]
                extract = " ".join(s.text for s in split_sentences(text)[:4])
            f1 = (0.0 if response["status"] == "abstained"
                  else token_f1(response["answer"], q.get("answers", [])))  # fmt: skip
            rows.append({"id": q["id"], "manual": name, "answerable": q.get("answerable", True),
                         "status": response["status"], "f1": f1,
                         "extractF1": token_f1(extract, q.get("answers", [])) if gold else None,
                         "question": q["question"], "answer": response["answer"]})  # fmt: skip
    yes = [r for r in rows if r["answerable"]]
    return {
        "questions": len(rows),
        "conflict": _share(sum(r["status"] == "conflict" for r in rows), len(rows)),
        "statuses": dict(Counter(r["status"] for r in rows)),
        "answerableF1": round(sum(r["f1"] for r in yes) / len(yes), 3) if yes else 0.0,
        "goldPageExtractF1": round(sum(r["extractF1"] or 0 for r in yes) / len(yes), 3)
        if yes
        else 0.0,
        "_rows": rows,
    }


def menus(ask: Ask, scope: str, folder: str) -> dict[str, Any]:
    cases: list[MenuCase] = read_cases(DATA / folder / "questions.jsonl", MenuCase)
    rows = []
    for case in cases:
        response = ask(case.question, scope)
        quoted = quoted_labels(response["answer"], case.menu)
        rows.append({"id": case.id, "question": case.question, "status": response["status"],
                     "whole": set(case.asked) == set(case.menu), "labels": len(case.asked),
                     "asked": sum(label in quoted for label in case.asked) == len(case.asked),
                     "unasked": len(set(quoted) - set(case.asked)),
                     "answer": response["answer"]})  # fmt: skip
    parts = [r for r in rows if not r["whole"]]
    wholes = [r for r in rows if r["whole"]]
    return {
        "questions": len(rows),
        "askedQuoted": _share(sum(r["asked"] for r in rows), len(rows)),
        "wholeMenusQuoted": _share(sum(r["asked"] for r in wholes), len(wholes)),
        # one- and two-option questions with every asked option quoted
        "partsQuoted": {
            str(n): _share(sum(r["asked"] for r in kind), len(kind))
            for n in (1, 2)
            if (kind := [r for r in parts if r["labels"] == n])
        },
        "unaskedPerAnswer": _share(sum(r["unasked"] for r in parts), len(parts)),
        "statuses": dict(Counter(r["status"] for r in rows)),
        "_rows": rows,
    }


def _scope(suite: str) -> str:
    return "unseen-" + suite.replace("_", "-")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suites", default=",".join(SUITES), help=", ".join(SUITES))
    parser.add_argument("--skip-ingest", action="store_true")
    parser.add_argument("--url", help="ask a running service instead of the in-process path")
    parser.add_argument("--key", help="API key for --url")
    args = parser.parse_args(argv)
    wanted = [s for s in args.suites.split(",") if s]
    if set(wanted) - set(SUITES):
        parser.error(f"unknown suites: {', '.join(sorted(set(wanted) - set(SUITES)))}")
    folders = {"procedures": [("unseen-procedures", DATA / "procedures" / "kb")],
               "procedures_holdout": [("unseen-procedures-holdout",
                                       DATA / "procedures_holdout" / "kb")],
               "answer_types": [("unseen-answer-types", DATA / "answer_types" / "kb")],
               **{name: [(_scope(name), DATA / name / "kb")] for name in BLIND_SETS},
               "injection": [("unseen-injection", DATA / "injection_multilingual" / "kb")],
               "manuals": [(f"unseen-{m}", DATA / "consistent_manuals" / m / "kb")
                           for m in MANUALS],
               **{name: [(_scope(name), DATA / name / "kb")] for name in MENU_SETS}}  # fmt: skip
    settings = Settings.from_env()
    embedder = SentenceTransformerEmbedder(settings.embedding)
    results: dict[str, Any] = {}
    with graph_session(settings) as graph:
        if not args.skip_ingest:
            for suite in wanted:
                for scope, folder in folders[suite]:
                    started = time.perf_counter()
                    options = IngestOptions(scope=scope, prune=True)
                    done = ingest(graph, embedder, folder, options, settings.ingest)
                    print(
                        f"{scope}: {len(done.added)} added, {len(done.updated)} updated in "
                        f"{time.perf_counter() - started:.0f} s",
                        file=sys.stderr,
                    )
        if args.url:
            http = http_asker(args.url, args.key)

            def ask(question: str, scope: str) -> dict[str, Any]:
                return http(question, scope, TOP_K)
        else:

            def ask(question: str, scope: str) -> dict[str, Any]:
                return answer_question(graph, embedder, question, scope=scope, top_k=TOP_K,
                                       llm=False, **stage_settings(settings))  # fmt: skip

        runs: dict[str, Callable[[], dict[str, Any]]] = {
            "procedures": lambda: procedures(ask, "unseen-procedures"),
            "procedures_holdout": lambda: procedures(
                ask, "unseen-procedures-holdout", "procedures_holdout"
            ),
            "answer_types": lambda: answer_types(ask, "unseen-answer-types"),
            **{
                name: functools.partial(answer_types, ask, _scope(name), name)
                for name in BLIND_SETS
            },
            "injection": lambda: injection(ask, "unseen-injection"),
            "manuals": lambda: manuals(ask, MANUALS),
            **{name: functools.partial(menus, ask, _scope(name), name) for name in MENU_SETS},
        }
        for suite in wanted:
            started = time.perf_counter()
            figures = runs[suite]()
            figures["seconds"] = round(time.perf_counter() - started, 1)
            rows = figures.pop("_rows")
            (OUT / "unseen").mkdir(parents=True, exist_ok=True)
            with (OUT / "unseen" / f"{suite}.jsonl").open("w", encoding="utf-8") as out:
                for row in rows:
                    out.write(json.dumps(row, ensure_ascii=False) + "\n")
            results[suite] = figures
            print(json.dumps({suite: figures}, indent=1))
    (OUT / "unseen_pages.json").write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
