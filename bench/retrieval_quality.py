"""Retrieval quality on public data: ClapNQ dev (closed pool) and the Galaxy S10 e-manual.

    .venv/bin/python bench/retrieval_quality.py [--eval-dir ../shared/eval] [--skip-ingest]

Converts the two corpora of the shared evaluation data (see its README.md) into Markdown under
bench/out/eval-kb/ (scopes `eval-clapnq` and `eval-s10`), ingests them with the project's ingest()
and real embeddings (unchanged files are skipped, files that disappeared are pruned), then runs
retrieve_spans(top_k=10) for every question in three modes: full-text only, vector only and fused
(full-text, vector, knowledge point). The ranked paragraph hits become a ranked list of distinct
documents (first occurrence), mapped back to ClapNQ pids / S10 section ids, and scored:

- ClapNQ: the 300 answerable dev questions; a hit is the gold passage (`gold_pids`).
- S10: the 40 questions with heuristic_coverage >= 0.8; a hit is any section of
  heuristic_gold_groups[0].

Prints one table (set x mode x Recall@1/5/10, MRR@10) beside the plain baselines of the eval
README, and the S10 questions the fused mode misses at rank 1. Per-question results go to
bench/out/retrieval_quality.json.

The S10 manual text is Samsung's (internal evaluation only): it is written only under the
git-ignored bench/out/, never elsewhere in the repository.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import msgspec

from ingest.embeddings import SentenceTransformerEmbedder
from ingest.pipeline import IngestOptions, ingest
from ingest.units import document_id
from service.db import graph_session
from service.db.graph import Graph
from service.pipeline.plan import plan_query
from service.pipeline.retrieval import Retrieval, retrieve_spans
from service.settings import PipelineSettings, Settings, project_root

OUT = project_root() / "bench" / "out"
KB = OUT / "eval-kb"
MAP_FILE = OUT / "eval-kb-map.json"
RESULTS_FILE = OUT / "retrieval_quality.json"
CLAPNQ, S10 = "eval-clapnq", "eval-s10"
TOP_K = 10
CUTOFFS = (1, 5, 10)
S10_MIN_COVERAGE = 0.8
MODES: dict[str, frozenset[str]] = {
    "fulltext": frozenset({"fulltext"}),
    "vector": frozenset({"vector"}),
    "fused": frozenset({"fulltext", "vector", "knowledgePoint"}),
}
# The plain baselines of ../shared/eval/README.md (all-MiniLM-L6-v2, rank-bm25, whole passages
# or sections ranked directly), each beside the kgs mode it corresponds to.
BASELINE_NAMES = {"fulltext": "BM25", "vector": "dense", "fused": "RRF(60)"}
BASELINES: dict[str, dict[str, tuple[float, float, float, float]]] = {
    CLAPNQ: {
        "fulltext": (0.907, 0.957, 0.960, 0.930),
        "vector": (0.977, 1.000, 1.000, 0.988),
        "fused": (0.940, 0.987, 0.987, 0.960),
    },
    S10: {
        "fulltext": (0.725, 0.925, 0.950, 0.815),
        "vector": (0.650, 0.850, 0.900, 0.733),
        "fused": (0.775, 0.925, 0.950, 0.834),
    },
}
_UNSAFE = re.compile(r"[^A-Za-z0-9_.\-]")
_HEADING_PATH = re.compile(r"\s+>\s+")


class Question(msgspec.Struct, frozen=True, kw_only=True):
    qid: str
    question: str
    gold: frozenset[str]  # pids / sids; retrieving any one of them is a hit


class Outcome(msgspec.Struct, frozen=True, kw_only=True):
    qid: str
    documents: tuple[str, ...]  # ranked distinct pids / sids
    rank: int | None  # 1-based rank of the first gold document within TOP_K paragraphs
    top_hit: Mapping[str, Any] | None  # the first paragraph hit, for the misses list
    names: tuple[str, ...]  # knowledge points the question named
    elapsed_ms: float


# --- corpora -> Markdown --------------------------------------------------------------------


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def safe_name(identifier: str) -> str:
    return _UNSAFE.sub("_", identifier).lstrip(".") or "_"


def clapnq_markdown(passage: Mapping[str, Any]) -> str:
    return f"# {passage['title']}\n\n{passage['text']}\n"


def s10_markdown(title: str, lines: Sequence[str]) -> str:
    """The section title as H1, or a heading path ('A > B > C') as H1, H2, ... with the last
    part as front-matter `title`; every text line is its own paragraph."""
    path = [p for p in _HEADING_PATH.split(title.strip()) if p]
    head: list[str] = []
    if len(path) > 1:
        head = ["---", f"title: {json.dumps(path[-1])}", "---"]
    head += [f"{'#' * min(level, 6)} {text}" for level, text in enumerate(path or [title], 1)]
    body = [line.strip() for line in lines if line.strip()]
    if body and body[0] == (path[-1] if path else title):
        body = body[1:]  # the manual repeats the section title as its first line
    return "\n\n".join([*head, *body]) + "\n"


def s10_lines(eval_dir: Path, sections: Sequence[Mapping[str, Any]]) -> dict[str, list[str]]:
    """The sections' text lines from the upstream corpus (the derived JSONL joins them with
    spaces); a section whose lines do not rejoin to the derived text stays one paragraph."""
    upstream = eval_dir / "emanual_s10" / "data" / "s10_manual_corpus.json"
    raw: dict[str, Any] = (
        json.loads(upstream.read_text(encoding="utf-8")) if upstream.is_file() else {}
    )
    lines: dict[str, list[str]] = {}
    for section in sections:
        candidate = raw.get(section["sid"], {}).get("text")
        ok = isinstance(candidate, list) and " ".join(candidate) == section["text"]
        lines[section["sid"]] = list(candidate) if ok else [section["text"]]
    return lines


def write_scope(scope: str, files: Mapping[str, str]) -> int:
    """Write the scope's Markdown files (only those whose content changed) and delete files
    that are no longer wanted; returns how many files were (re)written."""
    folder = KB / scope
    folder.mkdir(parents=True, exist_ok=True)
    written = 0
    for name, text in files.items():
        target = folder / name
        if not target.is_file() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
            written += 1
    for stale in folder.rglob("*.md"):
        if stale.relative_to(folder).as_posix() not in files:
            stale.unlink()
    return written


def build_corpora(eval_dir: Path) -> tuple[dict[str, str], dict[str, str]]:
    """Markdown files of both scopes; returns (document path -> pid/sid, sid -> title)."""
    mapping: dict[str, str] = {}
    passages = read_jsonl(eval_dir / "clapnq" / "derived" / "dev_corpus.jsonl")
    files: dict[str, str] = {}
    for passage in passages:
        name = f"{safe_name(passage['pid'])}.md"
        if name in files:
            raise SystemExit(f"two ClapNQ pids map to the file name {name}")
        files[name] = clapnq_markdown(passage)
        mapping[f"{CLAPNQ}/{name}"] = passage["pid"]
    written = write_scope(CLAPNQ, files)
    print(f"{CLAPNQ}: {len(files)} passages ({written} files written)", flush=True)

    sections = read_jsonl(eval_dir / "emanual_s10" / "derived" / "s10_corpus.jsonl")
    lines = s10_lines(eval_dir, sections)
    files = {}
    titles: dict[str, str] = {}
    for section in sections:
        name = f"{safe_name(section['sid'])}.md"
        if name in files:
            raise SystemExit(f"two S10 sids map to the file name {name}")
        files[name] = s10_markdown(section["title"], lines[section["sid"]])
        mapping[f"{S10}/{name}"] = section["sid"]
        titles[section["sid"]] = section["title"]
    written = write_scope(S10, files)
    print(f"{S10}: {len(files)} sections ({written} files written)", flush=True)
    MAP_FILE.write_text(json.dumps(mapping, indent=1, sort_keys=True), encoding="utf-8")
    return mapping, titles


# --- questions ------------------------------------------------------------------------------


def clapnq_questions(eval_dir: Path) -> list[Question]:
    rows = read_jsonl(eval_dir / "clapnq" / "derived" / "dev_queries.jsonl")
    return [
        Question(qid=str(r["qid"]), question=r["question"], gold=frozenset(r["gold_pids"]))
        for r in rows
        if r["answerable"] and r["gold_pids"]
    ]


def s10_questions(eval_dir: Path) -> list[Question]:
    rows = read_jsonl(eval_dir / "emanual_s10" / "derived" / "s10_qa.jsonl")
    return [
        Question(
            qid=str(r["qid"]), question=r["question"], gold=frozenset(r["heuristic_gold_groups"][0])
        )
        for r in rows
        if r["heuristic_coverage"] >= S10_MIN_COVERAGE and r["heuristic_gold_groups"]
    ]


# --- retrieval and scoring ------------------------------------------------------------------


def ranked_documents(result: Retrieval, mapping: Mapping[str, str]) -> tuple[str, ...]:
    """The fused document ranking (top 10), as pids / sids."""
    by_id = {document_id(path.split("/", 1)[0], path): pid for path, pid in mapping.items()}
    return tuple(by_id.get(doc, doc) for doc, _ in result.documents[:TOP_K])


def first_rank(documents: Sequence[str], gold: frozenset[str]) -> int | None:
    return next((i for i, d in enumerate(documents, 1) if d in gold), None)


def run_mode(
    graph: Graph,
    scope: str,
    questions: Sequence[Question],
    vectors: Sequence[list[float]],
    channels: frozenset[str],
    mapping: Mapping[str, str],
    settings: PipelineSettings,
) -> list[Outcome]:
    outcomes = []
    for question, vector in zip(questions, vectors, strict=True):
        plan = plan_query(question.question, scope)
        started = time.perf_counter()
        result: Retrieval = retrieve_spans(
            graph, plan, vector, settings, top_k=TOP_K, channels=channels
        )
        elapsed = (time.perf_counter() - started) * 1000
        documents = ranked_documents(result, mapping)
        top = result.hits[0] if result.hits else None
        outcomes.append(
            Outcome(
                qid=question.qid,
                documents=documents,
                rank=first_rank(documents, question.gold),
                top_hit=None if top is None else {
                    "document": mapping.get(top.path, top.path), "text": top.text,
                    "headingPath": list(top.heading_path), "ranks": dict(top.ranks),
                    "score": top.score,
                },
                names=tuple(n.title for n in result.names),
                elapsed_ms=round(elapsed, 2),
            )
        )  # fmt: skip
    return outcomes


def metrics(outcomes: Sequence[Outcome]) -> tuple[float, ...]:
    """Recall@1, @5, @10 and MRR@10 over the questions."""
    n = len(outcomes)
    recalls = [sum(1 for o in outcomes if o.rank and o.rank <= k) / n for k in CUTOFFS]
    mrr = sum(1 / o.rank for o in outcomes if o.rank and o.rank <= max(CUTOFFS)) / n
    return (*recalls, mrr)


# --- report ---------------------------------------------------------------------------------


def print_table(
    results: Mapping[str, Mapping[str, list[Outcome]]], counts: Mapping[str, int]
) -> None:
    metric_names = [*(f"R@{k}" for k in CUTOFFS), "MRR@10"]
    header = (
        f"{'set':<12} {'kgs mode':<9} "
        + " ".join(f"{m:>6}" for m in metric_names)
        + f" {'docs/q':>6} {'ms/q':>5}  |  {'baseline':<8} "
        + " ".join(f"{m:>6}" for m in metric_names)
        + "  |  " + " ".join(f"{'d' + m:>7}" for m in metric_names)
    )  # fmt: skip
    print()
    print(header)
    print("-" * len(header))
    for scope, by_mode in results.items():
        label = f"{'ClapNQ' if scope == CLAPNQ else 'S10'} ({counts[scope]})"
        for mode, outcomes in by_mode.items():
            ours = metrics(outcomes)
            base = BASELINES[scope][mode]
            docs = statistics.mean(len(o.documents) for o in outcomes)
            ms = statistics.median(o.elapsed_ms for o in outcomes)
            print(
                f"{label:<12} {mode:<9} "
                + " ".join(f"{v:>6.3f}" for v in ours)
                + f" {docs:>6.1f} {ms:>5.0f}  |  {BASELINE_NAMES[mode]:<8} "
                + " ".join(f"{v:>6.3f}" for v in base)
                + "  |  " + " ".join(f"{a - b:>+7.3f}" for a, b in zip(ours, base, strict=True))
            )  # fmt: skip
            label = ""
    print(
        "\ndocs/q: documents in the fused document ranking, top 10 (the baselines rank 10 "
        "whole passages/sections); ms/q: median retrieve_spans time; d: kgs minus baseline."
    )


def print_clapnq_summary(by_mode: Mapping[str, list[Outcome]]) -> None:
    """Why the fused mode misses ClapNQ questions at rank 1, in counts."""
    vector_rank = {o.qid: o.rank for o in by_mode["vector"]}
    misses = [o for o in by_mode["fused"] if o.rank != 1]
    by_kp = sum(1 for o in misses if o.top_hit and "knowledgePoint" in o.top_hit["ranks"])
    sibling = sum(
        1 for o in misses if o.top_hit and str(o.top_hit["document"]).startswith("unans_")
    )
    dense_first = sum(1 for o in misses if vector_rank[o.qid] == 1)
    print(
        f"\nClapNQ fused misses at rank 1: {len(misses)}; the vector mode ranks the gold first "
        f"in {dense_first}; the first hit came through the knowledge-point channel in {by_kp}; "
        f"it is an unanswerable question's on-topic passage in {sibling}."
    )


def print_misses(
    questions: Sequence[Question],
    by_mode: Mapping[str, list[Outcome]],
    titles: Mapping[str, str],
) -> None:
    fused = by_mode["fused"]
    misses = [(q, o) for q, o in zip(questions, fused, strict=True) if o.rank != 1]
    print(f"\nS10 fused misses at rank 1: {len(misses)} of {len(questions)}")
    ranks_of = {mode: {o.qid: o.rank for o in outcomes} for mode, outcomes in by_mode.items()}
    for question, outcome in misses:
        gold = ", ".join(f"{sid} {titles.get(sid, '?')!r}" for sid in sorted(question.gold))
        ranks = " ".join(f"{mode}={ranks_of[mode][question.qid] or '-'}" for mode in ranks_of)
        print(f"\n[{question.qid}] {question.question}")
        print(f"  gold:      {gold}")
        print(f"  gold rank: {ranks}   (document rank in the top-10 paragraphs; - = absent)")
        if outcome.names:
            print(f"  named knowledge points: {', '.join(outcome.names)}")
        top = outcome.top_hit
        if top is None:
            print("  first:     nothing retrieved")
            continue
        text = " ".join(str(top["text"]).split())
        print(
            f"  first:     {top['document']} {titles.get(top['document'], '?')!r} "
            f"ranks={top['ranks']} score={top['score']}"
        )
        print(f"             {text[:160]}{'...' if len(text) > 160 else ''}")
        print(f"  top docs:  {' '.join(outcome.documents[:6])}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument(
        "--eval-dir", type=Path, default=project_root().parent / "shared" / "eval",
        help="the shared evaluation data (default: ../shared/eval)",
    )  # fmt: skip
    parser.add_argument(
        "--skip-ingest", action="store_true", help="use the graph as it is (no ingest)"
    )
    args = parser.parse_args()
    eval_dir: Path = args.eval_dir.resolve()
    settings = Settings.from_env()
    pipeline = PipelineSettings()

    mapping, titles = build_corpora(eval_dir)
    question_sets = {CLAPNQ: clapnq_questions(eval_dir), S10: s10_questions(eval_dir)}
    known = set(mapping.values())
    for scope, questions in question_sets.items():
        missing = {g for q in questions for g in q.gold} - known
        if missing:
            raise SystemExit(f"{scope}: gold ids not in the corpus: {sorted(missing)[:5]}")
    embedder = SentenceTransformerEmbedder(settings.embedding)
    with graph_session(settings) as graph:
        if not args.skip_ingest:
            report = ingest(graph, embedder, KB, IngestOptions(prune=True), settings.ingest)
            print(
                f"ingest {', '.join(report.scopes)}: {len(report.added)} added, "
                f"{len(report.updated)} updated, {len(report.unchanged)} unchanged, "
                f"{len(report.removed)} removed, {report.paragraphs_written} paragraphs written, "
                f"{report.embeddings_computed} embeddings, {len(report.problems)} problems, "
                f"{report.elapsed_s:.1f} s",
                flush=True,
            )
            for problem in report.problems[:10]:
                print(f"  {problem.path}:{problem.line}: {problem.severity}: {problem.message}")
            if report.embedding_failure:
                raise SystemExit(f"embeddings failed: {report.embedding_failure}")
        results: dict[str, dict[str, list[Outcome]]] = {}
        for scope, questions in question_sets.items():
            queries = [plan_query(q.question, scope).query for q in questions]
            vectors = embedder.embed(queries)
            results[scope] = {}
            for mode, channels in MODES.items():
                results[scope][mode] = run_mode(
                    graph, scope, questions, vectors, channels, mapping, pipeline
                )
                print(f"{scope} {mode}: {len(questions)} questions done", flush=True)

    print_table(results, {scope: len(qs) for scope, qs in question_sets.items()})
    print_clapnq_summary(results[CLAPNQ])
    print_misses(question_sets[S10], results[S10], titles)
    RESULTS_FILE.write_text(
        json.dumps(
            {
                "topK": TOP_K,
                "pipelineSettings": msgspec.to_builtins(pipeline),
                "metrics": {
                    scope: {mode: dict(zip(("R@1", "R@5", "R@10", "MRR@10"), metrics(o),
                                           strict=True))
                            for mode, o in by_mode.items()}
                    for scope, by_mode in results.items()
                },
                "questions": {
                    scope: {mode: [msgspec.to_builtins(o) for o in outcomes]
                            for mode, outcomes in by_mode.items()}
                    for scope, by_mode in results.items()
                },
            },
            indent=1,
        ),
        encoding="utf-8",
    )  # fmt: skip
    print(f"\nper-question results: {RESULTS_FILE.relative_to(project_root())}")


if __name__ == "__main__":
    main()
