"""A question without a scope: answered from the readable scope whose evidence is best.

Design. The evidence path stays per scope: each scope keeps its own retrieval (its own vector
search mode and full-text query, which require the scope), graph context, context pack, conflict
scan and answer stages. Scopes are separate knowledge bases: two of them may say different
things without contradicting each other, and the pack budget, the sufficiency gate and the
conflict scan are calibrated on one scope's evidence. So evidence is not fused across scopes;
one scope is chosen and answered from as if it had been named:

1. `scopes_to_search` lists the readable scopes that hold documents (the key's scopes; every
   scope in development mode and on the command line), at most `limit` of them. More is a
   QuestionError (HTTP 400) asking the caller to name a scope: each scope costs a retrieval,
   and a cheap pre-ranking of scopes would be a second, approximate retrieval to maintain.
2. `answer_best_scope` plans the question and retrieves in each scope in turn, all with one
   question embedding.
3. Each scope is scored by a number comparable across scopes: the highest cosine of its hits to
   the question (stored paragraph embeddings, the statement answer/evidence_support). Fused hit
   scores are min-max normalised per scope and question (every scope's best hit scores about
   alike), so they cannot compare scopes. Without cosines (no model, or a scope ingested without
   embeddings) the share of the question's key terms found in a scope's hits decides; then the
   number of hits, then the name.
4. The best scope is answered through answer_question, reusing its retrieval. The trace's
   `scopeChoice` lists every scope searched with its scores and says why the answer's scope was
   chosen; the trace's `cypher` starts with the statements of the choice.

A caller only ever passes scopes its grant can read, and every statement here is restricted to
them (the hits whose cosines are read come from those scopes' retrievals), so nothing of another
scope, not even its name, reaches the answer or the trace.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import msgspec

from ingest.relation_labels import compact_key
from service.answer.judge import ChatCompleter
from service.db.graph import Graph
from service.pipeline.budgets import AnswerSettings, PipelineSettings
from service.pipeline.plan import Depth, QueryPlan, plan_query
from service.pipeline.retrieval import Retrieval, retrieve_spans
from service.pipeline.runner import (
    QueryEmbedder,
    QuestionError,
    Retrieved,
    answer_question,
    check_question,
    embed_in_background,
)

__all__ = ["ScopeScore", "answer_best_scope", "rank_scopes", "scopes_to_search"]


class ScopeScore(msgspec.Struct, frozen=True, kw_only=True):
    scope: str
    best_cosine: float | None  # the highest cosine of its hits to the question
    term_coverage: float  # share of the question's key terms found in its hits
    hits: int


def scopes_to_search(graph: Graph, readable: Sequence[str] | None, limit: int) -> list[str]:
    """The scopes holding documents among `readable` (None: every scope), by name; a
    QuestionError when there is none, or more than `limit`."""
    rows = graph.read(
        "scope/readable_scopes",
        scopes=None if readable is None else sorted(readable),
        limit=limit + 1,
    )
    scopes = [str(row["scope"]) for row in rows]
    if not scopes:
        raise QuestionError("no readable scope holds any documents: name a scope to search")
    if len(scopes) > limit:
        raise QuestionError(
            f"more than {limit} readable scopes hold documents (KGS_API_MAX_QUESTION_SCOPES): "
            "name the scope to search"
        )
    return scopes


def answer_best_scope(
    graph: Graph,
    embedder: QueryEmbedder | None,
    query: str,
    *,
    scopes: Sequence[str],
    depth: Depth | None = None,
    top_k: int | None = None,
    settings: PipelineSettings | None = None,
    answer_settings: AnswerSettings | None = None,
    llm: ChatCompleter | bool | None = True,
) -> dict[str, Any]:
    """The answer response of answer_question, from the scope among `scopes` (all readable by
    the caller) whose evidence is closest to the question; the trace says which and why."""
    settings = settings or PipelineSettings()
    check_question(query, settings)
    if not scopes:
        raise QuestionError("no scope to search")
    run = graph.child()
    started = time.perf_counter()
    plans = {scope: plan_query(query, scope, depth) for scope in scopes}
    plan_ms = _since(started)
    first = plans[scopes[0]]
    embedding = embed_in_background(embedder, first.query) if embedder is not None else None
    retrievals = {
        scope: retrieve_spans(run, plans[scope], embedding, settings, top_k=top_k)
        for scope in scopes
    }
    vector = embedding.result() if embedding is not None else None
    retrieval_ms = round(_since(started) - plan_ms, 2)
    ranked = rank_scopes(_scores(run, plans, retrievals, vector)) if len(scopes) > 1 else []
    chosen = ranked[0].scope if ranked else scopes[0]
    choice_ms = round(_since(started) - plan_ms - retrieval_ms, 2)
    timings = {"plan": plan_ms, "retrieval": retrieval_ms, "scopeChoice": choice_ms}
    retrieved = Retrieved(plan=plans[chosen], retrieval=retrievals[chosen], vector=vector,
                          timings_ms=timings)  # fmt: skip
    response = answer_question(
        run, embedder, query, scope=chosen, depth=depth, top_k=top_k, settings=settings,
        answer_settings=answer_settings, llm=llm, retrieved=retrieved,
    )  # fmt: skip
    trace = response["trace"]
    trace["scopeChoice"] = {
        "scopes": [_score_trace(s) for s in ranked] or [{"scope": chosen}],
        "chosen": chosen,
        "reason": _reason(ranked),
    }
    choice_calls = [
        {"statement": c.statement, "parameters": c.parameters, "elapsedMs": c.elapsed_ms,
         "rows": c.rows}
        for c in run.calls
    ]  # fmt: skip
    trace["cypher"] = [*choice_calls, *trace["cypher"]]
    return response


def rank_scopes(scores: Sequence[ScopeScore]) -> list[ScopeScore]:
    """Best first: a cosine beats none, then the higher cosine, key-term coverage, hits, name."""
    return sorted(
        scores,
        key=lambda s: (s.best_cosine is None, -(s.best_cosine or 0.0), -s.term_coverage,
                       -s.hits, s.scope),
    )  # fmt: skip


def _scores(
    graph: Graph,
    plans: dict[str, QueryPlan],
    retrievals: dict[str, Retrieval],
    vector: Sequence[float] | None,
) -> list[ScopeScore]:
    cosines: dict[str, float] = {}
    ids = [h.paragraph_id for r in retrievals.values() for h in r.hits]
    if vector is not None and ids:
        rows = graph.read("answer/evidence_support", paragraphIds=ids, vector=list(vector))
        cosines = {str(r["paragraphId"]): float(r["cosine"]) for r in rows
                   if r["cosine"] is not None}  # fmt: skip
    scores = []
    for scope, retrieval in retrievals.items():
        found = [cosines[h.paragraph_id] for h in retrieval.hits if h.paragraph_id in cosines]
        scores.append(
            ScopeScore(
                scope=scope, best_cosine=round(max(found), 6) if found else None,
                term_coverage=_term_coverage(plans[scope], retrieval), hits=len(retrieval.hits),
            )
        )  # fmt: skip
    return scores


def _term_coverage(plan: QueryPlan, retrieval: Retrieval) -> float:
    terms = {compact_key(t) for t in plan.terms} - {""}
    if not terms:
        return 0.0
    text = compact_key(" ".join(f"{h.title} {' '.join(h.heading_path)} {h.text}"
                                for h in retrieval.hits))  # fmt: skip
    return round(sum(1 for t in terms if t in text) / len(terms), 6)


def _reason(ranked: Sequence[ScopeScore]) -> str:
    if not ranked:
        return "the only scope to search"
    best, rest = ranked[0], ranked[1:]
    runner_up = rest[0] if rest else None
    if best.best_cosine is not None:
        after = (f"; next {runner_up.scope!r} at {runner_up.best_cosine:.3f}"
                 if runner_up and runner_up.best_cosine is not None else "")  # fmt: skip
        return f"the highest best-hit cosine to the question ({best.best_cosine:.3f}{after})"
    if best.hits:
        return (
            "no cosines to compare (no question embedding, or no stored embeddings): the "
            f"largest share of the question's key terms in its hits ({best.term_coverage:.2f})"
        )
    return "no scope returned evidence: the first by name"


def _score_trace(score: ScopeScore) -> dict[str, Any]:
    return {"scope": score.scope, "bestCosine": score.best_cosine,
            "termCoverage": score.term_coverage, "hits": score.hits}  # fmt: skip


def _since(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 2)
