"""Conflict flagging on RAMDocs (misinformation, ambiguity, noise), without any LLM.

    .venv/bin/python bench/ramdocs_conflicts.py [--eval-dir ../shared/eval] [--skip-ingest]
                                                [--limit N] [--no-pipeline] [--resume]

Each RAMDocs question with its own documents becomes one scope (`ramdocs-NNN`, one Markdown
file per document under the git-ignored bench/out/ramdocs-kb/, types and answers left out),
ingested with the project's ingest() and real embeddings. Two modes, on the same graph:

- scan: the conflict mechanism alone (service/pipeline/conflicts/) over every paragraph of
  every document of the question, read through the same Cypher as the pipeline
  (evidence/document_paragraphs), with the question's terms for relevance and every document
  counted as selected;
- pipeline: answer_question end to end (retrieval chooses the documents; no LLM judge), flagged
  when the context pack holds a `conflict` fragment. It also records what a client sees: the
  response's `status` and `trace.ragSufficiencyReview.degradation`, and prints the share of
  questions answered with status `conflict` (and with degradation `conflict`) among those with
  a misinformation document and among those without one (all correct; and all without misinfo,
  noise included).

Scores (labels as ../shared/eval/README.md derives them): a question is a positive when one of
its documents is `misinfo`; precision, recall and F1 of flagging over all questions; the
false-conflict rate over questions whose documents are all `correct`; for ambiguous questions
(two or more distinct gold answers) the share flagged and, in pipeline mode, the share whose one
answer keeps every gold answer (case-insensitive substring). Questions 0-249 are the half the
thresholds were tuned on, 250-499 the held-out half; both are printed. Missed positives are
counted by kind. Per-question results go to bench/out/ramdocs_conflicts.json.

The scan mode also measures the entity-sameness signal the mechanism gates aligned statements
with (`DocumentProfile.same_entity_share` >= `ConflictSettings.min_same_entity_share`): over
pairs of a question's correct documents, a pair with one gold answer is taken as one entity and
a pair with two different answers as two (ambiguous names), and the bench prints how often the
signal calls each kind "one entity" (labels are read here only, never by the mechanism).

It also bounds what any comparison of the documents can reach. A mechanism without world
knowledge can flag a misinformation document only where another document of the question states
the same thing differently. For each positive the bench takes the share of the misinformation
document's 8-word stretches found in one other document of the question (best pair), and prints
the recall per band of that share and the precision, recall and F1 if every positive whose
misinformation document shares any stretch were flagged, with no false flag added.

RAMDocs: Wang, Prasad, Stengel-Eskin, Bansal 2025 (arXiv:2504.13079), MIT license.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import msgspec

from ingest.embeddings import SentenceTransformerEmbedder
from ingest.pipeline import IngestOptions, ingest
from ingest.units import document_id
from service.db import graph_session
from service.db.graph import Graph
from service.pipeline.augment import document_rows, passage_of, stored_profiles
from service.pipeline.conflicts import ConflictSettings, scan_conflicts, select_conflicts
from service.pipeline.plan import plan_query
from service.question.runner import answer_question
from service.settings import Settings, project_root
from service.text.facts import DocumentProfile, document_profiles

OUT = project_root() / "bench" / "out"
KB = OUT / "ramdocs-kb"
RESULTS_FILE = OUT / "ramdocs_conflicts.json"
PARTIAL_FILE = OUT / "ramdocs_pipeline.partial.jsonl"  # pipeline outcomes as they come
TUNE_HALF = 250  # questions [0, 250) were used to choose the thresholds
NEAR_COPY_SHARE = 0.5  # share of a misinfo doc's 8-word shingles found in one correct doc
_WORD = re.compile(r"\w+")


class Outcome(msgspec.Struct, frozen=True, kw_only=True):
    index: int
    question: str
    positive: bool  # a misinformation document is present
    only_correct: bool
    ambiguous: bool
    flagged: bool
    kinds: tuple[str, ...]  # fact kinds of the conflicts found
    # entity-sameness shares of pairs of correct documents: one gold answer / two different ones
    same_answer_shares: tuple[float, ...] = ()
    other_answer_shares: tuple[float, ...] = ()
    values: tuple[tuple[str, ...], ...]
    answer_keeps_gold: bool | None = None  # pipeline mode, ambiguous questions
    misinfo_read: bool | None = None  # pipeline mode: a misinfo document was read
    status: str | None = None  # pipeline mode: the response's status, as a client sees it
    degradation: str | None = None  # pipeline mode: trace.ragSufficiencyReview.degradation
    miss: str | None = None  # why a positive was not flagged
    # positives: the largest share of a misinformation document's 8-word stretches found in
    # one other document of the question (0.0: it shares no stretch with any)
    counterpart: float | None = None
    elapsed_ms: float = 0.0
    scan_ms: float = 0.0  # scan mode: the mechanism alone (facts, profiles, detection, selection)


def scope_name(index: int) -> str:
    return f"ramdocs-{index:03d}"


def write_corpus(records: Sequence[Mapping[str, Any]]) -> int:
    """One scope per question; files are rewritten only when their text changed."""
    written = 0
    for index, record in enumerate(records):
        folder = KB / scope_name(index)
        folder.mkdir(parents=True, exist_ok=True)
        wanted = {}
        for number, doc in enumerate(record["documents"], 1):
            wanted[f"source-{number:02d}.md"] = f"# Source {number}\n\n{doc['text'].strip()}\n"
        for name, text in wanted.items():
            target = folder / name
            if not target.is_file() or target.read_text(encoding="utf-8") != text:
                target.write_text(text, encoding="utf-8")
                written += 1
        for stale in folder.glob("*.md"):
            if stale.name not in wanted:
                stale.unlink()
    return written


def labels(record: Mapping[str, Any]) -> tuple[bool, bool, bool]:
    types = [d["type"] for d in record["documents"]]
    gold = {g.strip().casefold() for g in record["gold_answers"]}
    return "misinfo" in types, all(t == "correct" for t in types), len(gold) >= 2


def shingles(text: str, size: int = 8) -> set[tuple[str, ...]]:
    words = _WORD.findall(text.lower())
    return {tuple(words[i : i + size]) for i in range(len(words) - size + 1)}


def counterpart_share(record: Mapping[str, Any]) -> float | None:
    """See `Outcome.counterpart`; None when the question has no misinformation document."""
    if not any(d["type"] == "misinfo" for d in record["documents"]):
        return None
    documents = [shingles(d["text"]) for d in record["documents"]]
    shares = [
        len(own & other) / len(own)
        for n, (doc, own) in enumerate(zip(record["documents"], documents, strict=True))
        if doc["type"] == "misinfo" and own
        for m, other in enumerate(documents)
        if m != n
    ]
    return round(max(shares, default=0.0), 3)


def miss_kind(record: Mapping[str, Any], misinfo_read: bool | None) -> str:
    """Why a question with a misinformation document was not flagged (first reason that
    applies, across its misinformation documents)."""
    if misinfo_read is False:
        return "misinfo document not selected by retrieval"
    correct = [shingles(d["text"]) for d in record["documents"] if d["type"] == "correct"]
    kinds = []
    for doc in record["documents"]:
        if doc["type"] != "misinfo":
            continue
        if doc["answer"].casefold() not in doc["text"].casefold():
            kinds.append("wrong answer not stated in the text")
            continue
        own = shingles(doc["text"])
        share = max((len(own & c) / len(own) for c in correct if own), default=0.0)
        if share >= NEAR_COPY_SHARE:
            kinds.append("edited copy of a correct document, edit not aligned")
        else:
            kinds.append("wrong answer restated in other words (no aligned counterpart)")
    return min(kinds) if kinds else "no misinfo document"


def scan_mode(
    graph: Graph, records: Sequence[Mapping[str, Any]], settings: ConflictSettings
) -> list[Outcome]:
    outcomes = []
    for index, record in enumerate(records):
        scope = scope_name(index)
        started = time.perf_counter()
        ids = [
            document_id(scope, f"{scope}/source-{n:02d}.md")
            for n in range(1, len(record["documents"]) + 1)
        ]
        rows = document_rows(graph, ids)
        passages = [passage_of(r) for r in rows]
        scan_started = time.perf_counter()
        found = select_conflicts(
            scan_conflicts(passages, settings, profiles=stored_profiles(rows)).conflicts,
            terms=plan_query(record["question"], scope).terms,
            direct_documents=set(ids),
            limit=settings.max_conflicts,
        )
        scan_ms = (time.perf_counter() - scan_started) * 1000
        elapsed = (time.perf_counter() - started) * 1000
        same, other = sameness_pairs(record, ids, document_profiles(passages))
        positive, only_correct, ambiguous = labels(record)
        outcomes.append(
            Outcome(
                index=index, question=record["question"], positive=positive,
                only_correct=only_correct, ambiguous=ambiguous, flagged=bool(found),
                kinds=tuple(c.kind for c in found), values=tuple(c.values for c in found),
                miss=miss_kind(record, None) if positive and not found else None,
                counterpart=counterpart_share(record), elapsed_ms=round(elapsed, 2),
                scan_ms=round(scan_ms, 2), same_answer_shares=same, other_answer_shares=other,
            )
        )  # fmt: skip
    return outcomes


def sameness_pairs(
    record: Mapping[str, Any], ids: Sequence[str], profiles: Mapping[str, DocumentProfile]
) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Entity-sameness shares of the question's pairs of correct documents, split by whether
    the two support one answer (one entity) or two different ones (two entities)."""
    correct = [
        (profiles[i], d["answer"].strip().casefold())
        for i, d in zip(ids, record["documents"], strict=True)
        if d["type"] == "correct" and i in profiles
    ]
    same: list[float] = []
    other: list[float] = []
    for n, (one, answer) in enumerate(correct):
        for two, answer_two in correct[n + 1 :]:
            (same if answer == answer_two else other).append(round(one.same_entity_share(two), 3))
    return tuple(same), tuple(other)


def print_sameness(outcomes: Sequence[Outcome], threshold: float) -> None:
    """How well the entity-sameness signal separates one entity from two, per half; and what
    the mechanism alone costs per question (each question's documents met once: cold caches)."""
    costs = sorted(o.scan_ms for o in outcomes)
    if costs:
        print(
            f"\nscan cost per question (facts, profiles, detection, selection; cold): median "
            f"{costs[len(costs) // 2]:.1f} ms, p95 {costs[int(len(costs) * 0.95)]:.1f} ms, "
            f"max {costs[-1]:.1f} ms"
        )
    print("\nentity sameness (share of names/figures) on pairs of correct documents:")
    for half, subset in halves(outcomes).items():
        same = [s for o in subset for s in o.same_answer_shares]
        other = [s for o in subset for s in o.other_answer_shares]
        for cut in sorted({0.2, threshold, 0.5}):
            called_same = sum(s >= cut for s in same)
            called_other = sum(s >= cut for s in other)
            called = called_same + called_other
            precision = called_same / called if called else 0.0
            print(
                f"  {half:<15} share >= {cut:.2f}: one-entity pairs called one "
                f"{called_same}/{len(same)}, two-entity pairs called one "
                f"{called_other}/{len(other)}, precision of 'one entity' {precision:.3f}"
            )


COUNTERPART_BANDS = ((0.0, 0.0), (0.0, 0.5), (0.5, 1.0))  # (above, up to): none, some, a copy


def print_reach(outcomes: Sequence[Outcome]) -> None:
    """Recall per band of the misinformation document's textual counterpart, and the scores if
    every positive with any counterpart were flagged (a bound for comparing documents)."""
    print("\nreach of comparing documents (scan; positives by the misinformation document's")
    print("share of 8-word stretches in one other document of the question):")
    for half, subset in halves(outcomes).items():
        positives = [(o, o.counterpart) for o in subset if o.positive and o.counterpart is not None]
        bands = []
        for above, upto in COUNTERPART_BANDS:
            band = [o for o, c in positives if (c == 0.0 if upto == 0.0 else above < c <= upto)]
            flagged = sum(o.flagged for o in band)
            label = "none" if upto == 0.0 else f"({above:.1f}, {upto:.1f}]"
            bands.append(f"{label} {flagged}/{len(band)}")
        tp = sum(o.flagged for o, _ in positives)
        reachable = sum(o.flagged or c > 0.0 for o, c in positives)
        fp = sum(o.flagged and not o.positive for o in subset)
        precision = reachable / (reachable + fp) if reachable + fp else 0.0
        recall = reachable / len(positives) if positives else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        print(
            f"  {half:<15} flagged per band: {', '.join(bands)}; found {tp}, bound "
            f"{reachable}/{len(positives)}: P {precision:.3f} R {recall:.3f} F1 {f1:.3f}"
        )


def pipeline_mode(
    graph: Graph,
    embedder: SentenceTransformerEmbedder,
    records: Sequence[Mapping[str, Any]],
    resume: bool = False,
) -> list[Outcome]:
    """Each outcome is also appended to PARTIAL_FILE as it comes; with `resume`, the questions
    already there (same question text) are not asked again (a run cut short by a database
    restart goes on where it stopped)."""
    done: dict[int, Outcome] = {}
    if resume and PARTIAL_FILE.is_file():
        for line in PARTIAL_FILE.read_text(encoding="utf-8").splitlines():
            kept = msgspec.json.decode(line, type=Outcome)
            if kept.index < len(records) and records[kept.index]["question"] == kept.question:
                done[kept.index] = kept
    partial = PARTIAL_FILE.open("a" if resume else "w", encoding="utf-8")
    outcomes = []
    for index, record in enumerate(records):
        if index in done:
            outcomes.append(done[index])
            continue
        scope = scope_name(index)
        started = time.perf_counter()
        response = answer_question(graph, embedder, record["question"], scope=scope)
        elapsed = (time.perf_counter() - started) * 1000
        pack = response["trace"]["ragContextPack"]
        conflicts = [f for f in pack["fragments"] if f["role"] == "conflict"]
        read = set(pack["documentsRead"])
        misinfo_paths = {
            f"{scope}/source-{n:02d}.md"
            for n, d in enumerate(record["documents"], 1)
            if d["type"] == "misinfo"
        }
        positive, only_correct, ambiguous = labels(record)
        answer = str(response.get("answer", "")).casefold()
        gold = {g.strip().casefold() for g in record["gold_answers"]}
        misinfo_read = bool(misinfo_paths & read) if positive else None
        review = response["trace"].get("ragSufficiencyReview") or {}
        outcomes.append(
            Outcome(
                index=index, question=record["question"], positive=positive,
                only_correct=only_correct, ambiguous=ambiguous, flagged=bool(conflicts),
                kinds=(), values=tuple(tuple(f.get("conflictValues", ())) for f in conflicts),
                answer_keeps_gold=all(g in answer for g in gold) if ambiguous else None,
                misinfo_read=misinfo_read,
                miss=miss_kind(record, misinfo_read) if positive and not conflicts else None,
                elapsed_ms=round(elapsed, 2), status=str(response.get("status", "")),
                degradation=review.get("degradation"),
            )
        )  # fmt: skip
        partial.write(msgspec.json.encode(outcomes[-1]).decode() + "\n")
        partial.flush()
        if (index + 1) % 50 == 0:
            print(f"pipeline: {index + 1} questions", flush=True)
    partial.close()
    return outcomes


def scores(outcomes: Sequence[Outcome]) -> dict[str, float | int | None]:
    tp = sum(1 for o in outcomes if o.flagged and o.positive)
    fp = sum(1 for o in outcomes if o.flagged and not o.positive)
    fn = sum(1 for o in outcomes if not o.flagged and o.positive)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    clean = [o for o in outcomes if o.only_correct]
    ambiguous = [o for o in outcomes if o.ambiguous]
    keeps = [o for o in ambiguous if o.answer_keeps_gold is not None]
    return {
        "questions": len(outcomes),
        "positives": tp + fn,
        "precision": precision,
        "recall": recall,
        "f1": f1,
        "onlyCorrect": len(clean),
        "falseConflictRate": sum(o.flagged for o in clean) / len(clean) if clean else None,
        "ambiguous": len(ambiguous),
        "ambiguousFlagged": sum(o.flagged for o in ambiguous) / len(ambiguous)
        if ambiguous else None,
        "ambiguousAnswerKeepsAllGold": sum(bool(o.answer_keeps_gold) for o in keeps) / len(keeps)
        if keeps else None,
    }  # fmt: skip


def client_rates(outcomes: Sequence[Outcome]) -> dict[str, dict[str, float | int | None]]:
    """What a client sees (pipeline mode): the share of questions answered with status
    `conflict`, and with degradation `conflict`, by whether a misinformation document is
    among the question's documents; the status counts of each group."""
    groups = {
        "misinfo": [o for o in outcomes if o.positive],
        "noMisinfo": [o for o in outcomes if not o.positive],
        "onlyCorrect": [o for o in outcomes if o.only_correct],
    }
    rates: dict[str, dict[str, float | int | None]] = {}
    for name, group in groups.items():
        n = len(group)
        rates[name] = {
            "questions": n,
            "statusConflict": sum(o.status == "conflict" for o in group) / n if n else None,
            "degradationConflict": sum(o.degradation == "conflict" for o in group) / n
            if n else None,
            **{f"status:{k}": v for k, v in Counter(o.status for o in group).most_common()},
        }  # fmt: skip
    return rates


def print_client(outcomes: Sequence[Outcome]) -> None:
    print("\nas a client sees it (pipeline): share answered with status conflict / with")
    print("degradation conflict, by whether a misinformation document is present:")
    for half, subset in halves(outcomes).items():
        rates = client_rates(subset)
        cells = [
            f"{name} {r['statusConflict'] or 0.0:.3f} / {r['degradationConflict'] or 0.0:.3f} "
            f"(n {r['questions']})"
            for name, r in rates.items()
        ]
        print(f"  {half:<15} " + "; ".join(cells))
    statuses = Counter(o.status for o in outcomes)
    print(f"  statuses (all): {dict(statuses.most_common())}")


def halves(outcomes: Sequence[Outcome]) -> dict[str, list[Outcome]]:
    return {
        f"tune 0-{TUNE_HALF - 1}": [o for o in outcomes if o.index < TUNE_HALF],
        f"held-out {TUNE_HALF}-": [o for o in outcomes if o.index >= TUNE_HALF],
        "all": list(outcomes),
    }


def print_table(results: Mapping[str, Sequence[Outcome]]) -> None:
    header = (
        f"{'mode':<9} {'half':<15} {'n':>4} {'pos':>4} {'P':>6} {'R':>6} {'F1':>6} "
        f"{'FCR':>6} {'(n)':>5} {'ambFl':>6} {'ambKeep':>8} {'ms/q':>6}"
    )
    print("\n" + header + "\n" + "-" * len(header))
    for mode, outcomes in results.items():
        for half, subset in halves(outcomes).items():
            s = scores(subset)
            keep = s["ambiguousAnswerKeepsAllGold"]
            ms = sorted(o.elapsed_ms for o in subset)[len(subset) // 2] if subset else 0.0
            print(
                f"{mode:<9} {half:<15} {s['questions']:>4} {s['positives']:>4} "
                f"{s['precision']:>6.3f} {s['recall']:>6.3f} {s['f1']:>6.3f} "
                f"{s['falseConflictRate'] or 0.0:>6.3f} {s['onlyCorrect']:>5} "
                f"{s['ambiguousFlagged'] or 0.0:>6.3f} "
                f"{'-' if keep is None else f'{keep:.3f}':>8} {ms:>6.0f}"
            )
    print(
        "\nP/R/F1: flagging a conflict when a misinformation document is present (all "
        "questions); FCR: false-conflict rate on questions whose documents are all correct (n); "
        "ambFl: share of ambiguous questions (>= 2 distinct gold answers) flagged; ambKeep: "
        "share of ambiguous questions whose answer contains every gold answer; ms/q: median."
    )
    for mode, outcomes in results.items():
        misses = Counter(o.miss for o in outcomes if o.miss)
        kinds = Counter(k for o in outcomes for k in o.kinds)
        print(f"\n{mode}: missed positives by kind ({sum(misses.values())}):")
        for kind, count in misses.most_common():
            print(f"  {count:>4}  {kind}")
        if kinds:
            print(f"{mode}: conflicts found by fact kind: {dict(kinds.most_common())}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument(
        "--eval-dir", type=Path, default=project_root().parent / "shared" / "eval",
        help="the shared evaluation data (default: ../shared/eval)",
    )  # fmt: skip
    parser.add_argument("--skip-ingest", action="store_true", help="use the graph as it is")
    parser.add_argument("--limit", type=int, default=500, help="first N questions (bound)")
    parser.add_argument("--no-pipeline", action="store_true", help="scan mode only")
    parser.add_argument(
        "--resume", action="store_true",
        help="pipeline: keep the outcomes of an interrupted run, ask only the rest",
    )  # fmt: skip
    args = parser.parse_args()
    path = args.eval_dir.resolve() / "ramdocs" / "RAMDocs_test.jsonl"
    with path.open(encoding="utf-8") as lines:
        records = [json.loads(line) for line in lines if line.strip()][: args.limit]
    settings = Settings.from_env()
    conflict_settings = ConflictSettings()
    written = write_corpus(records)
    print(f"ramdocs: {len(records)} questions ({written} files written)", flush=True)
    embedder = SentenceTransformerEmbedder(settings.embedding)
    with graph_session(settings) as graph:
        if not args.skip_ingest:
            report = ingest(graph, embedder, KB, IngestOptions(prune=True), settings.ingest)
            print(
                f"ingest: {len(report.added)} added, {len(report.updated)} updated, "
                f"{len(report.unchanged)} unchanged, {report.embeddings_computed} embeddings, "
                f"{len(report.problems)} problems, {report.elapsed_s:.1f} s",
                flush=True,
            )
            if report.embedding_failure:
                raise SystemExit(f"embeddings failed: {report.embedding_failure}")
        results = {"scan": scan_mode(graph, records, conflict_settings)}
        print("scan: done", flush=True)
        if not args.no_pipeline:
            results["pipeline"] = pipeline_mode(graph, embedder, records, args.resume)
    print_table(results)
    if "pipeline" in results:
        print_client(results["pipeline"])
    print_sameness(results["scan"], conflict_settings.min_same_entity_share)
    print_reach(results["scan"])
    RESULTS_FILE.write_text(
        json.dumps(
            {
                "conflictSettings": msgspec.to_builtins(conflict_settings),
                "scores": {
                    mode: {half: scores(subset) for half, subset in halves(outcomes).items()}
                    for mode, outcomes in results.items()
                },
                "client": {
                    half: client_rates(subset)
                    for half, subset in halves(results.get("pipeline", [])).items()
                },
                "questions": {
                    mode: [msgspec.to_builtins(o) for o in outcomes]
                    for mode, outcomes in results.items()
                },
            },
            indent=1,
        ),
        encoding="utf-8",
    )
    print(f"\nper-question results: {RESULTS_FILE.relative_to(project_root())}")


if __name__ == "__main__":
    main()
