"""The timed runs: every question through the seven measures in rotating order, each meeting
the question as new, with the CPU spent on the machine during the window."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ingest.embeddings import SentenceTransformerEmbedder
from latency import ROOT
from latency.graphrag import GraphragSide
from service.answer.sentences import forget_public_texts
from service.db.graph import Graph
from service.pipeline.augment import augment_documents
from service.pipeline.context_pack import build_context_pack
from service.pipeline.graph_context import build_graph_context
from service.pipeline.plan import plan_query
from service.pipeline.retrieval import retrieve_spans
from service.question.runner import answer_question, embed_in_background
from service.settings import PipelineSettings
from service.text.analysis import forget_decoded
from service.text.facts import forget_facts
from service.text.spans import forget_sentences

WARMUP_QUESTIONS = 10
MEASURES = (
    "whole",
    "answer",
    "retrieval",
    "embedding",
    "graphrag",
    "retrieval_given",
    "graphrag_given",
    "graphrag_cypher",
)


class CpuWindow:
    """CPU seconds spent during a window: the whole machine, this process, the Neo4j server,
    and everything else (other people's work), from /proc."""

    def __init__(self, neo4j_pid: int | None) -> None:
        self.neo4j_pid = neo4j_pid
        self.canary_start = cpu_canary_ms()
        self.tick = os.sysconf("SC_CLK_TCK")
        self.start = self._sample()
        self.started = time.perf_counter()
        self.load_start = os.getloadavg()

    def _sample(self) -> tuple[float, float, float]:
        fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
        values = [int(x) for x in fields]
        busy = (sum(values[:8]) - values[3] - values[4]) / self.tick  # minus idle and iowait
        times = os.times()
        own = times.user + times.system
        server = 0.0
        if self.neo4j_pid:
            try:
                stat = Path(f"/proc/{self.neo4j_pid}/stat").read_text().rsplit(")", 1)[1].split()
                server = (int(stat[11]) + int(stat[12])) / self.tick
            except (OSError, IndexError, ValueError):
                server = 0.0
        return busy, own, server

    def finish(self) -> dict[str, float]:
        busy, own, server = (b - a for a, b in zip(self.start, self._sample(), strict=True))
        wall = time.perf_counter() - self.started
        cores = os.cpu_count() or 1
        return {
            "wallS": round(wall, 1),
            "machineBusyCpuS": round(busy, 1),
            "benchProcessCpuS": round(own, 1),
            "neo4jCpuS": round(server, 1),
            "otherCpuS": round(max(0.0, busy - own - server), 1),
            "otherShareOfMachinePct": round(
                100 * max(0.0, busy - own - server) / (wall * cores), 1
            ),
            "loadavg1Start": round(self.load_start[0], 2),
            "loadavg1End": round(os.getloadavg()[0], 2),
            "cpuCanaryMsStart": self.canary_start,
            "cpuCanaryMsEnd": cpu_canary_ms(),
        }


def cpu_canary_ms() -> float:
    """A fixed pure-Python workload (best of 5): the host's speed at this moment. Neighbours on
    the same host (invisible from inside this VM) slow every measure alike; compare runs by it."""
    best = float("inf")
    for _ in range(5):
        started = time.perf_counter()
        sum(i * i for i in range(200_000))
        best = min(best, time.perf_counter() - started)
    return round(best * 1000, 2)


def neo4j_pid() -> int | None:
    try:
        return int((ROOT / ".kgs" / "neo4j" / "run" / "neo4j.pid").read_text().strip())
    except (OSError, ValueError):
        return None


@dataclass
class ScaleResult:
    scale: str
    scope: str
    paragraphs: int
    times: dict[str, list[float]] = field(default_factory=lambda: {m: [] for m in MEASURES})
    stages: list[dict[str, float]] = field(default_factory=list)
    cypher: dict[str, list[float]] = field(default_factory=dict)
    cypher_rows: dict[str, list[int]] = field(default_factory=dict)
    statuses: dict[str, int] = field(default_factory=dict)
    intents: dict[str, int] = field(default_factory=dict)
    vector_modes: dict[str, int] = field(default_factory=dict)
    hits: list[int] = field(default_factory=list)
    graphrag_items: list[int] = field(default_factory=list)
    cpu: dict[str, float] = field(default_factory=dict)
    corpus: dict[str, Any] = field(default_factory=dict)


def time_scale(
    graph: Graph,
    embedder: SentenceTransformerEmbedder,
    graphrag: GraphragSide,
    graphrag_cypher: GraphragSide,
    result: ScaleResult,
    questions: Sequence[tuple[str, str]],
    warmup: Sequence[tuple[str, str]],
    top_k: int,
    *,
    cold_texts: bool,
) -> None:
    settings = PipelineSettings()
    scope = result.scope

    def embedding(q: str) -> float:
        started = time.perf_counter()
        embedder.embed([plan_query(q, scope).query])
        return (time.perf_counter() - started) * 1000

    def retrieval(q: str) -> float:
        started = time.perf_counter()
        plan = plan_query(q, scope)
        vector = embed_in_background(embedder, plan.query)  # as answer_question does
        retrieve_spans(graph.child(), plan, vector, settings, top_k=top_k)
        return (time.perf_counter() - started) * 1000

    def retrieval_given(q: str, vector: list[float]) -> float:
        started = time.perf_counter()
        retrieve_spans(graph.child(), plan_query(q, scope), vector, settings, top_k=top_k)
        return (time.perf_counter() - started) * 1000

    def whole(q: str) -> float:
        started = time.perf_counter()
        evidence_path(graph, embedder, q, scope, settings, top_k)
        return (time.perf_counter() - started) * 1000

    def answer(q: str, record: bool) -> float:
        started = time.perf_counter()
        response = answer_question(graph, embedder, q, scope=scope, top_k=top_k)
        elapsed = (time.perf_counter() - started) * 1000
        if record:
            trace = response["trace"]
            result.stages.append(dict(trace["timingsMs"]))
            for call in trace["cypher"]:
                result.cypher.setdefault(call["statement"], []).append(call["elapsedMs"])
                result.cypher_rows.setdefault(call["statement"], []).append(call["rows"])
            _count(result.statuses, response["status"])
            _count(result.intents, trace["plan"]["intent"])
            _count(result.vector_modes, trace["retrieval"]["vectorMode"])
            result.hits.append(len(trace["retrieval"]["hits"]))
        return elapsed

    def graphrag_ms(
        q: str, record: bool, vector: list[float] | None = None, side: GraphragSide = graphrag
    ) -> float:
        elapsed, items = side.search_ms(q, vector)
        if record:
            result.graphrag_items.append(items)
        return elapsed

    patterns: dict[Any, Any] = {}  # Python's regex cache after the warm-up

    def run(q: str, rotation: int, record: bool) -> None:
        given = embedder.embed([plan_query(q, scope).query])[0]  # one vector, both sides
        measures: list[tuple[str, Callable[[], float]]] = [
            ("whole", lambda: whole(q)),
            ("answer", lambda: answer(q, record)),
            ("retrieval", lambda: retrieval(q)),
            ("embedding", lambda: embedding(q)),
            ("graphrag", lambda: graphrag_ms(q, record)),
            ("retrieval_given", lambda: retrieval_given(q, given)),
            ("graphrag_given", lambda: graphrag_ms(q, False, given)),
            ("graphrag_cypher", lambda: graphrag_ms(q, False, None, graphrag_cypher)),
        ]
        rotation %= len(measures)
        for name, measure in measures[rotation:] + measures[:rotation]:
            _forget_question_patterns(patterns)
            embedder.forget([plan_query(q, scope).query])  # the question is always new
            if cold_texts:
                forget_texts()
                embedder.forget()
            elapsed = measure()
            if record:
                result.times[name].append(elapsed)

    for i, (_, q) in enumerate(warmup):
        run(q, i, record=False)
    if not cold_texts:
        for _, q in questions:  # untimed: paragraphs' sentence splits and facts get cached
            answer_question(graph, embedder, q, scope=scope, top_k=top_k)
    patterns.update(_regex_cache_snapshot())
    window = CpuWindow(neo4j_pid())
    for i, (_, q) in enumerate(questions):
        run(q, i, record=True)
        if (i + 1) % 50 == 0:
            print(f"    {i + 1}/{len(questions)} questions", flush=True)
    result.cpu = window.finish()


def evidence_path(
    graph: Graph,
    embedder: SentenceTransformerEmbedder,
    question: str,
    scope: str,
    settings: PipelineSettings,
    top_k: int,
) -> None:
    """Plan -> context pack: the stages answer_question runs before its answer stages."""
    run = graph.child()
    plan = plan_query(question, scope)
    vector = embed_in_background(embedder, plan.query)
    found = retrieve_spans(run, plan, vector, settings, top_k=top_k)
    context = build_graph_context(run, plan, found, settings)
    augmentation = augment_documents(run, plan, found, context, settings)
    build_context_pack(
        augmentation.fragments, plan.budget, observed_ids=augmentation.observed_ids,
        unavailable=augmentation.unavailable,
    )  # fmt: skip


def forget_texts() -> None:
    """Each measure meets the question's paragraphs cold too: the service keeps the sentence
    splits and extracted facts of recent paragraphs, and a previous measure of the same question
    would have filled them (the benchmark then understates what the caches give). The
    embedder's cache of sentence vectors is emptied beside them."""
    forget_sentences()
    forget_facts()
    forget_decoded()  # facts.forget_facts empties the decodes, not the split words
    forget_public_texts()


def _regex_cache_snapshot() -> dict[Any, Any]:
    cache = getattr(re, "_cache", None)
    return dict(cache) if isinstance(cache, dict) else {}


def _forget_question_patterns(baseline: dict[Any, Any]) -> None:
    """Every measure meets the question for the first time. The pipeline compiles regular
    expressions from the question's terms (service/text/spans.py), and Python's `re` cache
    would otherwise hand the second measure of a question the first one's compiled patterns
    (several ms per term). The patterns cached by the warm-up (the static ones) stay."""
    cache = getattr(re, "_cache", None)
    if isinstance(cache, dict):
        cache.clear()
        cache.update(baseline)
        extra = getattr(re, "_cache2", None)  # Python 3.12+: a second, smaller cache
        if isinstance(extra, dict):
            extra.clear()
    else:
        re.purge()


def _count(counter: dict[str, int], key: str) -> None:
    counter[key] = counter.get(key, 0) + 1
