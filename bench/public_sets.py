"""Every public set as a client meets kgs: plain knowledge bases, `kgs eval`, plain baselines.

    .venv/bin/python bench/public_sets.py [--eval-dir ../shared/eval] [--sets clapnq,squad,...]
                                          [--skip-ingest] [--url http://127.0.0.1:8000]

Each set is written the plain way a user would lay it out, under bench/out/public-kb/<scope>/:

- clapnq (scope pub-clapnq): one file per passage, `# <title>` and the passage; 600 questions
  (300 unanswerable, each written against an on-topic passage of the pool).
- s10-plain (pub-s10-plain): one file per manual section, `# <title>` and the section's text as
  one block; the 40 questions of heuristic coverage >= 0.8 (../shared/eval/README.md).
- s10-structured (pub-s10-structured): the same sections with their heading path split into
  headings and every upstream line its own paragraph (bench/retrieval_quality.py's layout).
- squad (pub-squad): SQuAD 2.0 sample, one folder per article and one file per paragraph
  (../shared/eval/squad2/make_kb.py's layout); 720 questions, 347 impossible.

The knowledge bases are ingested with real embeddings, then every question goes through the
`kgs eval` code (service/evaluation; in process like `kgs ask`, or through a running API with
--url) with topK 10. Beside each set: plain RRF(60) of BM25 (Okapi, k1 1.5, b 0.75, `\\w+`
tokens) and all-MiniLM-L6-v2 cosine over whole files, which always answers, and a plain
extractive answer: the first four sentences of RRF's top file.

Figures are printed for the fit half (questions at even positions of each set, the ones any
parameter of the answer path may be chosen on) and the report half (odd positions), and for
all questions. Outcomes go to bench/out/public/<set>.jsonl (with the answerability inputs, for
bench/fit_answerability.py), the plain baseline's to bench/out/public-plain/<set>.jsonl, and the
tables to bench/out/public_sets.json.

Data licences: ClapNQ Apache-2.0 (Wikipedia text CC BY-SA); SQuAD 2.0 CC BY-SA 4.0; the S10
manual is Samsung's, internal evaluation only: its text is written only under the git-ignored
bench/out/.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import re
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
from retrieval_quality import read_jsonl, s10_lines, s10_markdown, safe_name

from ingest.embeddings import SentenceTransformerEmbedder
from ingest.pipeline import IngestOptions, ingest
from service.db import graph_session
from service.evaluation import (
    EvalQuestion,
    Outcome,
    http_asker,
    read_questions,
    report,
    run_questions,
)
from service.evaluation.report import format_report, write_outcomes
from service.evaluation.run import Ask
from service.evaluation.scoring import token_f1
from service.question.runner import answer_question
from service.settings import Settings, project_root
from service.text.spans import split_sentences

OUT = project_root() / "bench" / "out"
KB = OUT / "public-kb"
TOP_K = 10
EXTRACTIVE_SENTENCES = 4
RRF_K = 60
BM25_K1, BM25_B = 1.5, 0.75
SETS = ("clapnq", "s10-plain", "s10-structured", "squad", "kb")
KB_QUESTIONS = project_root() / "bench" / "data" / "kb_paraphrases.jsonl"
_WORD = re.compile(r"\w+")


class PublicSet(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    scope: str
    files: dict[str, str]  # path inside the scope folder -> Markdown
    questions: tuple[EvalQuestion, ...]  # gold paths are scope-relative, as citations name them


# --- the plain knowledge bases --------------------------------------------------------------


def clapnq_set(eval_dir: Path) -> PublicSet:
    scope = "pub-clapnq"
    files: dict[str, str] = {}
    for p in read_jsonl(eval_dir / "clapnq" / "derived" / "dev_corpus.jsonl"):
        files[f"{safe_name(p['pid'])}.md"] = f"# {p['title']}\n\n{p['text']}\n"
    questions = tuple(
        EvalQuestion(
            id=str(r["qid"]), question=r["question"], answerable=bool(r["answerable"]),
            answers=tuple(a for a in r["answers"] if a) if r["answerable"] else (),
            gold=tuple(f"{scope}/{safe_name(g)}.md" for g in r["gold_pids"]),
        )
        for r in read_jsonl(eval_dir / "clapnq" / "derived" / "dev_queries.jsonl")
    )  # fmt: skip
    return PublicSet(name="clapnq", scope=scope, files=files, questions=questions)


def s10_sets(eval_dir: Path) -> list[PublicSet]:
    sections = read_jsonl(eval_dir / "emanual_s10" / "derived" / "s10_corpus.jsonl")
    lines = s10_lines(eval_dir, sections)
    rows = [
        r for r in read_jsonl(eval_dir / "emanual_s10" / "derived" / "s10_qa.jsonl")
        if r["heuristic_coverage"] >= 0.8
    ]  # fmt: skip
    out = []
    for name, scope, markdown in (
        ("s10-plain", "pub-s10-plain", lambda s: f"# {s['title']}\n\n{s['text']}\n"),
        ("s10-structured", "pub-s10-structured",
         lambda s: s10_markdown(s["title"], lines[s["sid"]])),
    ):  # fmt: skip
        files = {f"{safe_name(s['sid'])}.md": markdown(s) for s in sections}
        questions = tuple(
            EvalQuestion(
                id=str(r["qid"]), question=r["question"], answers=(r["answer"],),
                gold=tuple(f"{scope}/{safe_name(g)}.md" for g in r["heuristic_gold_groups"][0]),
            )
            for r in rows
        )  # fmt: skip
        out.append(PublicSet(name=name, scope=scope, files=files, questions=questions))
    return out


def squad_set(eval_dir: Path) -> PublicSet:
    scope = "pub-squad"
    rows = read_jsonl(eval_dir / "squad2" / "derived" / "squad2_qa.jsonl")
    articles = {r["article"] for r in rows}
    files: dict[str, str] = {}
    for p in read_jsonl(eval_dir / "squad2" / "derived" / "squad2_corpus.jsonl"):
        if p["article"] in articles:
            heading = p["article"].replace("_", " ")
            files[f"{safe_name(p['article'])}/{p['pid']}.md"] = f"# {heading}\n\n{p['text']}\n"
    questions = tuple(
        EvalQuestion(
            id=r["qid"], question=r["question"], answerable=bool(r["answerable"]),
            answers=tuple(r["answers"]) if r["answerable"] else (),
            gold=(f"{scope}/{safe_name(r['article'])}/{r['gold_pid']}.md",)
            if r["answerable"] else (),
        )
        for r in rows
    )  # fmt: skip
    return PublicSet(name="squad", scope=scope, files=files, questions=questions)


def kb_set() -> PublicSet:
    """The shipped knowledge base's probe questions and their paraphrases (bench/kb_paraphrases.py;
    ids `<scope>:<case>:<n>`), asked in each question's own scope. Never used for fitting."""
    questions = tuple(read_questions(KB_QUESTIONS))
    return PublicSet(name="kb", scope="", files={}, questions=questions)


def write_scope(public: PublicSet) -> int:
    """Write the files that changed, delete those no longer wanted; returns files written."""
    folder = KB / public.scope
    written = 0
    for name, text in public.files.items():
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.is_file() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
            written += 1
    for stale in folder.rglob("*.md"):
        if stale.relative_to(folder).as_posix() not in public.files:
            stale.unlink()
    return written


# --- the plain baselines --------------------------------------------------------------------


def _tokens(text: str) -> list[str]:
    return _WORD.findall(text.lower())


class PlainIndex:
    """BM25 and dense cosine over whole files, fused by RRF(60): what a user gets from a plain
    hybrid search over the same text."""

    def __init__(self, paths: Sequence[str], texts: Sequence[str], vectors: np.ndarray) -> None:
        self.paths, self.texts, self.vectors = list(paths), list(texts), vectors
        self.docs = [Counter(_tokens(t)) for t in texts]
        self.lengths = [sum(d.values()) for d in self.docs]
        self.average = sum(self.lengths) / max(len(self.lengths), 1)
        df: Counter[str] = Counter(w for d in self.docs for w in d)
        n = len(self.docs)
        self.idf = {w: math.log((n - c + 0.5) / (c + 0.5) + 1) for w, c in df.items()}

    def rank(self, question: str, vector: np.ndarray) -> list[int]:
        terms = _tokens(question)
        bm25 = []
        for doc, length in zip(self.docs, self.lengths, strict=True):
            norm = BM25_K1 * (1 - BM25_B + BM25_B * length / self.average)
            bm25.append(sum(
                self.idf.get(t, 0.0) * doc[t] * (BM25_K1 + 1) / (doc[t] + norm)
                for t in terms if t in doc
            ))  # fmt: skip
        dense = self.vectors @ vector
        fused: dict[int, float] = {}
        orders = (np.argsort(-np.array(bm25), kind="stable"), np.argsort(-dense, kind="stable"))
        for order in orders:
            for rank, index in enumerate(order, start=1):
                fused[int(index)] = fused.get(int(index), 0.0) + 1 / (RRF_K + rank)
        return sorted(fused, key=lambda i: (-fused[i], i))


def plain_outcomes(
    public: PublicSet, embedder: SentenceTransformerEmbedder, cache: Path
) -> list[Outcome]:
    paths = [f"{public.scope}/{name}" for name in public.files]
    texts = list(public.files.values())
    vectors = np.array(_cached_vectors(embedder, texts, cache), dtype=np.float32)
    index = PlainIndex(paths, texts, vectors)
    questions = np.array(embedder.embed([q.question for q in public.questions]), dtype=np.float32)
    outcomes = []
    for q, vector in zip(public.questions, questions, strict=True):
        order = index.rank(q.question, vector)
        documents = tuple(index.paths[i] for i in order[:TOP_K])
        gold = set(q.gold)
        rank = next((r for r, d in enumerate(documents, start=1) if d in gold), None)
        body = re.sub(r"^#.*\n", "", texts[order[0]]).strip()
        answer = " ".join(s.text for s in split_sentences(body)[:EXTRACTIVE_SENTENCES])
        outcomes.append(Outcome(
            id=q.id or q.question, question=q.question, answerable=q.answerable,
            status="answered", answer=answer, documents=documents, gold_rank=rank,
            has_gold=bool(gold), f1=token_f1(answer, q.answers) if q.answers else None,
            latency_ms=0.0,
        ))  # fmt: skip
    return outcomes


def _cached_vectors(
    embedder: SentenceTransformerEmbedder, texts: Sequence[str], cache: Path
) -> list[list[float]]:
    key = hashlib.sha256("\x00".join(texts).encode()).hexdigest()[:16]
    target = cache.with_suffix(f".{key}.npy")
    if target.is_file():
        return list(np.load(target))
    vectors = embedder.embed(list(texts))
    target.parent.mkdir(parents=True, exist_ok=True)
    np.save(target, np.array(vectors, dtype=np.float32))
    return vectors


# --- run ------------------------------------------------------------------------------------


def halves(outcomes: Sequence[Outcome]) -> dict[str, list[Outcome]]:
    return {"fit": list(outcomes[0::2]), "report": list(outcomes[1::2]), "all": list(outcomes)}


def row(label: str, outcomes: Sequence[Outcome]) -> str:
    r = report(outcomes)

    def f(value: float | None) -> str:
        return "    -" if value is None else f"{value:5.3f}"

    return (f"{label:<22} {f(r.recall['@1'])} {f(r.recall['@5'])} {f(r.answerable_refused)} "
            f"{f(r.balanced_abstention)} {f(r.conflict_rate)} {f(r.answer_f1)} "
            f"{r.latency_p50_ms:7.1f} {r.latency_p95_ms:7.1f}")  # fmt: skip


HEADER = (f"{'':<22} {'R@1':>5} {'R@5':>5} {'refus':>5} {'BA':>5} {'confl':>5} {'F1':>5} "
          f"{'p50 ms':>7} {'p95 ms':>7}")  # fmt: skip


def _own_scopes(ask: Ask, scope_of: dict[str, str]) -> Ask:
    return lambda question, _scope, k: ask(question, scope_of[question], k)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--eval-dir", default=str(project_root().parent / "shared" / "eval"))
    parser.add_argument("--sets", default=",".join(SETS), help=f"some of {', '.join(SETS)}")
    parser.add_argument("--skip-ingest", action="store_true")
    parser.add_argument("--url", help="ask a running service instead of the in-process path")
    parser.add_argument("--limit", type=int, help="only the first N questions of each set")
    args = parser.parse_args(argv)
    eval_dir = Path(args.eval_dir)
    wanted = [s for s in args.sets.split(",") if s]
    unknown = set(wanted) - set(SETS)
    if unknown:
        parser.error(f"unknown sets: {', '.join(sorted(unknown))}")
    builders: dict[str, Callable[[], list[PublicSet]]] = {
        "clapnq": lambda: [clapnq_set(eval_dir)],
        "s10": lambda: s10_sets(eval_dir),
        "squad": lambda: [squad_set(eval_dir)],
        "kb": lambda: [kb_set()],
    }
    sets = [
        s for key, build in builders.items()
        if any(w.startswith(key) for w in wanted) for s in build() if s.name in wanted
    ]  # fmt: skip
    settings = Settings.from_env()
    embedder = SentenceTransformerEmbedder(settings.embedding)
    results: dict[str, Any] = {}
    with graph_session(settings) as graph:
        for public in sets:
            written = write_scope(public) if public.files else 0
            if public.files and not args.skip_ingest:
                started = time.perf_counter()
                done = ingest(
                    graph,
                    embedder,
                    KB / public.scope,
                    IngestOptions(scope=public.scope, prune=True),
                    settings.ingest,
                )
                print(f"{public.scope}: {len(public.files)} files ({written} written), "
                      f"{len(done.added)} added, {len(done.updated)} updated, "
                      f"{len(done.removed)} removed in {time.perf_counter() - started:.0f} s",
                      flush=True)  # fmt: skip
            questions = public.questions[: args.limit] if args.limit else public.questions
            ask: Ask = (
                http_asker(args.url, None) if args.url
                else lambda q, scope, k: answer_question(
                    graph, embedder, q, scope=scope or "", top_k=k, settings=settings.pipeline,
                    answer_settings=settings.answer, conflict_settings=settings.conflicts)
            )  # fmt: skip
            if public.name == "kb":  # each question in its own scope (the id's first part)
                ask = _own_scopes(ask, {q.question: (q.id or "").split(":")[0] for q in questions})
            kgs = list(run_questions(ask, questions, public.scope or None, TOP_K))
            write_outcomes(OUT / "public" / f"{public.name}.jsonl", kgs)
            if not public.files:  # the shipped knowledge base: no plain baseline here
                print(f"\n{public.name} ({len(questions)} questions)")
                print(format_report(report(kgs)))
                results[public.name] = {"kgs-all": msgspec.to_builtins(report(kgs))}
                continue
            plain = plain_outcomes(
                msgspec.structs.replace(public, questions=tuple(questions)), embedder,
                OUT / "public" / f"{public.name}-plain-vectors",
            )  # fmt: skip
            write_outcomes(OUT / "public-plain" / f"{public.name}.jsonl", plain)
            print(f"\n{public.name} ({len(questions)} questions, {len(public.files)} files)")
            print(HEADER)
            table: dict[str, Any] = {}
            for part, chosen in halves(kgs).items():
                print(row(f"kgs ({part})", chosen))
                table[f"kgs-{part}"] = msgspec.to_builtins(report(chosen))
            for part, chosen in halves(plain).items():
                if part == "all":
                    print(row("plain RRF + first 4", chosen))
                table[f"plain-{part}"] = msgspec.to_builtins(report(chosen))
            print(format_report(report(kgs)))
            results[public.name] = table
            sys.stdout.flush()
    (OUT / "public_sets.json").write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
