"""False conflicts on consistent corpora, as a client sees them, and a fast re-scan.

    .venv/bin/python bench/consistent_conflicts.py ask [--sets s10-plain,...] [--limit N]
    .venv/bin/python bench/consistent_conflicts.py rescan [--sets ...] [--save NAME]
                                                          [--against NAME] [--show N]

None of these corpora holds a real contradiction between its sources, so every `conflict`
status is a false one (the target is at most 2% of questions per set):

- s10-plain, s10-structured: the Galaxy S10 manual as bench/public_sets.py lays it out
  (scopes pub-s10-plain, pub-s10-structured): its 40 questions of heuristic coverage >= 0.8,
  plus one how-to question per third section title ("How do I <title>?"), since 40 questions
  are too few to read a 2% rate from;
- clapnq (pub-clapnq, 600 questions), squad (pub-squad, 720 questions): bench/public_sets.py's
  sets (ingested by that bench);
- general: the shipped knowledge_base/ scopes that are not conflict or qualifier probes, one
  "What is <title>?" per document and one question for each of its first two second-level
  headings.

`ask` answers every question in process (answer_question, topK 10 as `kgs eval`) and writes one
line per question to bench/out/consistent/<set>.jsonl: status, degradation, the documents read,
the directly matched documents, the plan's terms and the conflict fragments' texts. `rescan`
re-runs only the conflict scan and selection (augment's `_conflict_fragments` path) over the
documents each recorded question read, with the current code: the retrieval stays fixed, so two
versions of facts.py / conflicts.py compare on the same inputs in seconds. `--save NAME` keeps
the re-scan's findings under bench/out/consistent/rescan-NAME.json; `--against NAME` lists the
questions whose finding changed since.

The S10 manual text is Samsung's (internal evaluation only); it stays under bench/out/.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import msgspec
from public_sets import clapnq_set, s10_sets, squad_set
from retrieval_quality import read_jsonl

from ingest.units import document_id
from service.db import graph_session
from service.db.graph import Graph
from service.pipeline.augment import document_rows, passage_of, stored_profiles
from service.pipeline.conflicts import (
    ConflictSettings,
    conflict_text,
    scan_conflicts,
    select_conflicts,
)
from service.settings import Settings, project_root

OUT = project_root() / "bench" / "out" / "consistent"
TOP_K = 10
SETS = ("s10-plain", "s10-structured", "clapnq", "squad", "general")
# knowledge_base/ scopes built to hold conflicts or condition-qualified facts (probe corpora)
_PROBE_SCOPE = re.compile(r"conflict|fullscan|qualifier|crossscope")
_HEADING = re.compile(r"^(#{1,2})\s+(.+?)\s*#*\s*$", re.MULTILINE)


class Question(msgspec.Struct, frozen=True, kw_only=True):
    set: str
    scope: str
    question: str


class Asked(msgspec.Struct, frozen=True, kw_only=True):
    set: str
    scope: str
    question: str
    status: str
    degradation: str | None
    documents_read: tuple[str, ...]  # paths
    direct: tuple[str, ...]  # document ids retrieval matched directly
    neighbours: tuple[str, ...]  # document ids of graph neighbours read
    terms: tuple[str, ...]
    conflicts: tuple[str, ...]  # conflict fragments' texts
    latency_ms: float


def questions_of(name: str, eval_dir: Path) -> list[Question]:
    if name in ("s10-plain", "s10-structured"):
        public = next(s for s in s10_sets(eval_dir) if s.name == name)
        sections = read_jsonl(eval_dir / "emanual_s10" / "derived" / "s10_corpus.jsonl")
        titles = [f"How do I {s['title'].strip()}?" for s in sections[::3] if s["title"].strip()]
        texts = [q.question for q in public.questions] + titles
        return [Question(set=name, scope=public.scope, question=t) for t in texts]
    if name == "clapnq":
        public = clapnq_set(eval_dir)
    elif name == "squad":
        public = squad_set(eval_dir)
    else:
        return general_questions()
    return [Question(set=name, scope=public.scope, question=q.question) for q in public.questions]


def general_questions() -> list[Question]:
    found: list[Question] = []
    root = project_root() / "knowledge_base"
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        if _PROBE_SCOPE.search(folder.name):
            continue
        for path in sorted(folder.rglob("*.md")):
            headings = _HEADING.findall(path.read_text(encoding="utf-8"))
            titles = [f"What is {h.strip().rstrip('?')}?" for level, h in headings if level == "#"]
            sections = [f"{h.strip().rstrip('?')}?" for level, h in headings if level == "##"]
            for question in titles[:1] + sections[:2]:
                found.append(Question(set="general", scope=folder.name, question=question))
    return found


def ask_all(
    graph: Graph, questions: Sequence[Question], out: Path, settings: Settings
) -> list[Asked]:
    from ingest.embeddings import SentenceTransformerEmbedder
    from service.question.runner import answer_question, stage_settings

    embedder = SentenceTransformerEmbedder(settings.embedding)
    asked: list[Asked] = []
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as lines:
        for number, q in enumerate(questions, 1):
            started = time.perf_counter()
            response = answer_question(
                graph, embedder, q.question, scope=q.scope, top_k=TOP_K, **stage_settings(settings)
            )
            trace = response.get("trace") or {}
            pack = trace.get("ragContextPack") or {}
            graph_context = trace.get("graphContext") or {}
            hits = (trace.get("retrieval") or {}).get("hits", [])
            neighbours = [
                n.get("documentId")
                for n in [*graph_context.get("predecessors", []),
                          *graph_context.get("successors", [])]
            ]  # fmt: skip
            item = Asked(
                set=q.set, scope=q.scope, question=q.question,
                status=str(response.get("status", "")),
                degradation=(trace.get("ragSufficiencyReview") or {}).get("degradation"),
                documents_read=tuple(pack.get("documentsRead", ())),
                direct=tuple(dict.fromkeys(h["documentId"] for h in hits)),
                neighbours=tuple(n for n in neighbours if n),
                terms=tuple((trace.get("plan") or {}).get("terms", ())),
                conflicts=tuple(f["text"] for f in pack.get("fragments", ())
                                if f.get("role") == "conflict"),
                latency_ms=round((time.perf_counter() - started) * 1000, 1),
            )  # fmt: skip
            asked.append(item)
            lines.write(msgspec.json.encode(item).decode() + "\n")
            lines.flush()
            if number % 50 == 0:
                print(f"  {q.set}: {number}/{len(questions)}", flush=True)
    return asked


def rescan(graph: Graph, asked: Sequence[Asked], settings: ConflictSettings) -> list[list[str]]:
    """Each question's conflict texts from the current scan over the documents it read."""
    found: list[list[str]] = []
    for item in asked:
        ids = list(dict.fromkeys(
            [*item.direct, *item.neighbours,
             *(document_id(item.scope, p) for p in item.documents_read)]
        ))  # fmt: skip
        rows = document_rows(graph, ids)
        passages = [passage_of(r) for r in rows]
        scan = scan_conflicts(passages, settings, focus=set(item.direct),
                              profiles=stored_profiles(rows))  # fmt: skip
        chosen = select_conflicts(
            scan.conflicts, terms=item.terms, direct_documents=set(item.direct),
            limit=settings.max_conflicts,
        )  # fmt: skip
        found.append([conflict_text(c, settings.quote_chars) for c in chosen])
    return found


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=("ask", "rescan"))
    parser.add_argument("--eval-dir", default=str(project_root().parent / "shared" / "eval"))
    parser.add_argument("--sets", default=",".join(SETS), help=f"some of {', '.join(SETS)}")
    parser.add_argument("--limit", type=int, help="ask: only the first N questions of each set")
    parser.add_argument("--save", help="rescan: keep the findings under this name")
    parser.add_argument("--against", help="rescan: list the changes since a saved re-scan")
    parser.add_argument("--show", type=int, default=0, help="rescan: print N findings per set")
    args = parser.parse_args(argv)
    wanted = [s for s in args.sets.split(",") if s]
    unknown = set(wanted) - set(SETS)
    if unknown:
        parser.error(f"unknown sets: {', '.join(sorted(unknown))}")
    settings = Settings.from_env()
    saved: dict[str, list[list[str]]] = {}
    with graph_session(settings) as graph:
        for name in wanted:
            path = OUT / f"{name}.jsonl"
            if args.mode == "ask":
                questions = questions_of(name, Path(args.eval_dir))[: args.limit]
                asked = ask_all(graph, questions, path, settings)
                report(name, [a.status == "conflict" for a in asked], "status conflict")
                continue
            if not path.is_file():
                print(f"{name}: no {path.relative_to(project_root())}; run ask first")
                continue
            decoder = msgspec.json.Decoder(Asked)
            asked = [decoder.decode(line) for line in path.read_text().splitlines() if line]
            started = time.perf_counter()
            found = rescan(graph, asked, ConflictSettings())
            saved[name] = found
            report(name, [a.status == "conflict" for a in asked], "recorded status conflict")
            report(name, [bool(f) for f in found],
                   f"re-scan conflict ({time.perf_counter() - started:.0f} s)")  # fmt: skip
            show(asked, found, args.show)
            if args.against:
                changes(asked, found, OUT / f"rescan-{args.against}.json", name)
    if args.save and saved:
        target = OUT / f"rescan-{args.save}.json"
        kept = json.loads(target.read_text()) if target.is_file() else {}
        target.write_text(json.dumps({**kept, **saved}, indent=0))
    return 0


def report(name: str, flags: Sequence[bool], label: str) -> None:
    count = sum(flags)
    rate = count / len(flags) if flags else 0.0
    print(f"{name:<15} {label:<34} {count:>4}/{len(flags):<4} {rate:6.1%}", flush=True)


def show(asked: Sequence[Asked], found: Sequence[list[str]], limit: int) -> None:
    shown = 0
    for item, texts in zip(asked, found, strict=True):
        if texts and shown < limit:
            shown += 1
            print(f"  - {item.question}\n      {texts[0][:400]}")


def changes(asked: Sequence[Asked], found: Sequence[list[str]], path: Path, name: str) -> None:
    if not path.is_file():
        return
    before: list[list[str]] = json.loads(path.read_text()).get(name, [])
    counts: Counter[str] = Counter()
    for item, now, then in zip(asked, found, before, strict=False):
        if bool(now) != bool(then):
            counts["gone" if then else "new"] += 1
            print(f"  {'gone' if then else 'NEW '}: {item.question}\n"
                  f"      {(then or now)[0][:300]}")  # fmt: skip
    print(f"  changes since the saved re-scan: {dict(counts)}")


if __name__ == "__main__":
    sys.exit(main())
