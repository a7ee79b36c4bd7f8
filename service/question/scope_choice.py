"""A question without a scope: answered from the readable scope whose evidence is best.

Design. The evidence path stays per scope: each scope keeps its own retrieval (its own vector
search mode and full-text query, which require the scope), graph context, context pack, conflict
scan and answer stages. Scopes are separate knowledge bases: two of them may say different
things without contradicting each other, and the pack budget, the sufficiency gate and the
conflict scan are calibrated on one scope's evidence. So evidence is not fused across scopes;
one scope is chosen and answered from as if it had been named. A full retrieval costs some
20-30 ms per small scope (more for large ones), too much for each of hundreds of scopes, so
the readable scopes are pre-ranked first with one statement, and only the best few retrieve:

1. `scopes_to_search` lists the readable scopes that hold documents (the key's scopes; every
   scope in development mode and on the command line), at most `limit` of them
   (KGS_API_MAX_QUESTION_SCOPES, 1000). More is a QuestionError (HTTP 400: name a scope).
2. `answer_best_scope` pre-ranks them, unless there are no more than `candidates`
   (KGS_API_QUESTION_SCOPE_CANDIDATES, 3), which all retrieve. The pre-ranking score is
   comparable across scopes: the best cosine of the question's embedding to each scope's
   paragraphs (scope/rank_scopes_vector, one statement for every scope). That statement's
   rule is explicit and bounded: exact cosines while the scopes hold at most
   `exact_vector_max_paragraphs` paragraphs (the bound of one scope's exact search), else the
   shared vector index's `vector_max_candidates` nearest paragraphs, filtered to the scopes. A
   scope without a cosine (no question embedding, no embedded paragraph, or none among the
   index's candidates) ranks after every scope with one, as in the final choice; only when
   fewer than `candidates` scopes have a cosine does a second statement rank the others by
   their best BM25 score in the shared full-text index (scope/rank_scopes_fulltext, its scope
   keys in the Lucene query), then by name.
3. The best `candidates` scopes are planned and retrieved in turn (`retrieve_spans`), all with
   one question embedding, and scored by a number comparable across scopes: the highest cosine
   of their hits to the question (stored paragraph embeddings, the statement
   answer/evidence_support). Fused hit scores are min-max normalised per scope and question
   (every scope's best hit scores about alike), so they cannot compare scopes. Without cosines
   (no model, or a scope ingested without embeddings) the share of the question's key terms
   found in a scope's hits decides; then the number of hits, then the name.
4. The best scope is answered through answer_question, reusing its retrieval. The trace's
   `scopeChoice` lists the pre-ranking of every scope considered (best cosine, best full-text
   score when read, whether it retrieved), the retrieved scopes with their scores, and why the
   answer's scope was chosen; the trace's `cypher` starts with the statements of the choice.

A caller only ever passes scopes its grant can read, and every statement here is restricted to
them (the pre-ranking statements take the scopes as a parameter and keep only their rows; the
hits whose cosines are read come from those scopes' retrievals), so nothing of another scope,
not even its name, reaches the answer or the trace.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import msgspec

from service.answer.judge import ChatCompleter
from service.db.graph import Graph
from service.embedding_space import DEFAULT_SPACE, EmbeddingSpace, bind_embedder
from service.pipeline.lucene import lucene_query
from service.pipeline.plan import Depth, QueryPlan, plan_query
from service.pipeline.retrieval import Retrieval, retrieve_spans
from service.pipeline.scope_words import plan_in_scope_words
from service.question.runner import (
    QueryEmbedder,
    QuestionError,
    Retrieved,
    answer_question,
    check_question,
    embed_in_background,
)
from service.scope import scope_key
from service.settings import (
    AnswerSettings,
    ConflictSettings,
    GenerationSettings,
    PipelineSettings,
)
from service.text.relation_labels import compact_key

__all__ = [
    "PreRank",
    "PreRanking",
    "ScopeChoice",
    "ScopeScore",
    "answer_best_scope",
    "choose_scope",
    "fulltext_pre_rank_query",
    "pre_rank",
    "rank_scopes",
    "scopes_to_search",
]

# The shared full-text index's best matches read by the full-text pre-ranking.
FULLTEXT_PRE_RANK_CANDIDATES = 4000
# Lucene refuses a query of more than 1024 clauses (Neo4j 5.26 keeps Lucene's default; the
# analyzer may split a term into several, and the query's own boolean nodes count too). The
# scope keys go into the query while the scopes and the question's terms stay under this;
# beyond it the statement's scope filter alone keeps the readable scopes' matches.
LUCENE_SCOPE_KEY_CLAUSES = 768


class ScopeScore(msgspec.Struct, frozen=True, kw_only=True):
    scope: str
    best_cosine: float | None  # the highest cosine of its hits to the question
    term_coverage: float  # share of the question's key terms found in its hits
    hits: int


class PreRank(msgspec.Struct, frozen=True, kw_only=True):
    scope: str
    best_cosine: float | None  # of its paragraphs to the question (scope/rank_scopes_vector)
    best_fulltext: float | None = None  # BM25 in the shared index, read only when needed


class PreRanking(msgspec.Struct, frozen=True, kw_only=True):
    method: str  # how the scopes were ranked (see _pre_ranking), "none" when all retrieve
    ranked: tuple[PreRank, ...]  # every scope considered, best first
    retrieve: tuple[str, ...]  # the best `candidates` of them: these get a full retrieval


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


class ScopeChoice(msgspec.Struct, frozen=True, kw_only=True):
    """The scope chosen among several, its plan and retrieval, and the trace of the choice."""

    scope: str
    retrieved: Retrieved
    trace: dict[str, Any]  # the answer trace's `scopeChoice`
    calls: tuple[dict[str, Any], ...]  # the choice's Cypher, as the trace lists statements


def choose_scope(
    graph: Graph,
    embedder: QueryEmbedder | None,
    query: str,
    *,
    scopes: Sequence[str],
    depth: Depth | None = None,
    top_k: int | None = None,
    settings: PipelineSettings,
    candidates: int,
) -> ScopeChoice:
    """Steps 1-3 of the design above: the scope among `scopes` (all readable by the caller)
    whose evidence is closest to the question, with its retrieval (answered from, or listed by
    the MCP search tool). `candidates`: how many of the best pre-ranked scopes get a full
    retrieval (the caller's ApiSettings.question_scope_candidates)."""
    check_question(query, settings)
    if not scopes:
        raise QuestionError("no scope to search")
    wanted = candidates
    if wanted < 1:
        raise ValueError(f"candidates must be positive, got {wanted}")
    scopes = list(dict.fromkeys(scopes))
    run = graph.child()
    started = time.perf_counter()
    binding = bind_embedder(graph, embedder)
    embedder, space = binding.embedder, binding.space or DEFAULT_SPACE
    first = plan_query(query, scopes[0], depth)
    embedding = embed_in_background(embedder, first.query) if embedder is not None else None
    timings = {"plan": _since(started)}
    if len(scopes) > wanted:
        # The pre-ranking needs the embedding first (elsewhere its wait is part of retrieval).
        vector = None
        if embedding is not None:
            mark = time.perf_counter()
            vector = embedding.result()
            timings["embedding"] = _since(mark)
        mark = time.perf_counter()
        pre = _pre_ranking(run, scopes, first, vector, settings, wanted, space)
        timings["scopePreRanking"] = _since(mark)
    else:
        everyone = tuple(PreRank(scope=s, best_cosine=None) for s in scopes)
        pre = PreRanking(method="none", ranked=everyone, retrieve=tuple(scopes))
    mark = time.perf_counter()
    # Slips are corrected per scope (each against its own words); the question's embedding,
    # one for every scope, stays as typed.
    plans = {scope: plan_in_scope_words(run, plan_query(query, scope, depth), settings)
             for scope in pre.retrieve}  # fmt: skip
    retrievals = {
        scope: retrieve_spans(run, plans[scope], embedding, settings, top_k=top_k, space=space)
        for scope in pre.retrieve
    }
    vector = embedding.result() if embedding is not None else None
    timings["retrieval"] = _since(mark)
    mark = time.perf_counter()
    ranked = (rank_scopes(_scores(run, plans, retrievals, vector, space.vector_property))
              if len(plans) > 1 else [])  # fmt: skip
    chosen = ranked[0].scope if ranked else pre.retrieve[0]
    timings["scopeChoice"] = _since(mark)
    return ScopeChoice(
        scope=chosen,
        retrieved=Retrieved(plan=plans[chosen], retrieval=retrievals[chosen], vector=vector,
                            timings_ms=timings, binding=binding),
        trace={
            "preRanking": _pre_ranking_trace(pre, wanted),
            "scopes": [_score_trace(s) for s in ranked] or [{"scope": chosen}],
            "chosen": chosen,
            "reason": _reason(ranked, pre, len(scopes)),
        },
        calls=tuple(
            {"statement": c.statement, "parameters": c.parameters, "elapsedMs": c.elapsed_ms,
             "rows": c.rows}
            for c in run.calls
        ),
    )  # fmt: skip


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
    conflict_settings: ConflictSettings | None = None,
    llm: ChatCompleter | bool | None = True,
    candidates: int,
    generator: ChatCompleter | None = None,
    generation_settings: GenerationSettings | None = None,
    on_sentence: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """The answer response of answer_question, from the scope `choose_scope` picks; the trace
    says which and why."""
    settings = settings or PipelineSettings()
    choice = choose_scope(graph, embedder, query, scopes=scopes, depth=depth, top_k=top_k,
                          settings=settings, candidates=candidates)  # fmt: skip
    response = answer_question(
        graph, embedder, query, scope=choice.scope, depth=depth, top_k=top_k, settings=settings,
        answer_settings=answer_settings, conflict_settings=conflict_settings, llm=llm,
        retrieved=choice.retrieved, generator=generator, generation_settings=generation_settings,
        on_sentence=on_sentence,
    )  # fmt: skip
    trace = response["trace"]
    trace["scopeChoice"] = choice.trace
    trace["cypher"] = [*choice.calls, *trace["cypher"]]
    return response


def pre_rank(
    scopes: Sequence[str],
    cosines: Mapping[str, float],
    fulltext: Mapping[str, float] | None = None,
) -> list[PreRank]:
    """Every one of `scopes`, best first: a cosine beats none, then the higher cosine; then a
    full-text score beats none, the higher; then the name. Scores of other scopes are ignored."""
    fulltext = fulltext or {}
    ranks = [PreRank(scope=s, best_cosine=cosines.get(s), best_fulltext=fulltext.get(s))
             for s in dict.fromkeys(scopes)]  # fmt: skip
    return sorted(
        ranks,
        key=lambda r: (r.best_cosine is None, -(r.best_cosine or 0.0), r.best_fulltext is None,
                       -(r.best_fulltext or 0.0), r.scope),
    )  # fmt: skip


def fulltext_pre_rank_query(scopes: Sequence[str], terms: Sequence[str]) -> str | None:
    """The Lucene query of scope/rank_scopes_fulltext: the question's terms as optional clauses,
    all escaped (retrieval's lucene_query), and, while they fit LUCENE_SCOPE_KEY_CLAUSES, one
    required scope key among `scopes`'. None without a term or a scope."""
    kept = list(dict.fromkeys(t for t in terms if t.strip()))
    if not kept or not scopes:
        return None
    own = lucene_query(scopes[0], kept, ())  # "+scopeKey:<key of scopes[0]> +(<clauses>)"
    prefix = f"+scopeKey:{scope_key(scopes[0])} "
    if not own.startswith(prefix):
        raise AssertionError(f"unexpected Lucene query shape: {own[:80]!r}")
    question = own[len(prefix) :]
    if len(scopes) + len(kept) > LUCENE_SCOPE_KEY_CLAUSES:
        return question
    keys = " ".join(dict.fromkeys(scope_key(s) for s in scopes))
    return f"+scopeKey:({keys}) {question}"


def _pre_ranking(
    graph: Graph,
    scopes: Sequence[str],
    plan: QueryPlan,
    vector: Sequence[float] | None,
    settings: PipelineSettings,
    candidates: int,
    space: EmbeddingSpace,
) -> PreRanking:
    """`scopes` ranked with the statements of the module's step 2, best `candidates` kept."""
    allowed = set(scopes)
    methods: list[str] = []
    cosines: dict[str, float] = {}
    if vector is not None:
        rows = graph.read(
            "scope/rank_scopes_vector", scopes=list(scopes), vector=list(vector),
            exactMaxParagraphs=settings.exact_vector_max_paragraphs,
            candidates=settings.vector_max_candidates, property=space.vector_property,
            indexName=space.index,
        )  # fmt: skip
        cosines = {str(r["scope"]): round(float(r["bestCosine"]), 6) for r in rows
                   if r["scope"] in allowed and r["bestCosine"] is not None}  # fmt: skip
        method = str(rows[0]["method"]) if rows else "no embedded paragraph"
        if method == "index":
            method = f"index:{settings.vector_max_candidates}"
        methods.append(f"vector:{method}")
    fulltext: dict[str, float] = {}
    rest = [s for s in scopes if s not in cosines]
    lucene = fulltext_pre_rank_query(rest, plan.terms) if len(cosines) < candidates else None
    if lucene is not None:
        rows = graph.read(
            "scope/rank_scopes_fulltext", lucene=lucene, scopes=rest,
            candidates=FULLTEXT_PRE_RANK_CANDIDATES,
        )  # fmt: skip
        fulltext = {str(r["scope"]): round(float(r["bestScore"]), 6) for r in rows
                    if r["scope"] in allowed}  # fmt: skip
        methods.append("fulltext" if "+scopeKey:(" in lucene else "fulltext:filtered")
    ranked = pre_rank(scopes, cosines, fulltext)
    return PreRanking(
        method=" + ".join(methods) or "name", ranked=tuple(ranked),
        retrieve=tuple(r.scope for r in ranked[:candidates]),
    )  # fmt: skip


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
    vector_property: str,
) -> list[ScopeScore]:
    cosines: dict[str, float] = {}
    ids = [h.paragraph_id for r in retrievals.values() for h in r.hits]
    if vector is not None and ids:
        rows = graph.read("answer/evidence_support", paragraphIds=ids, vector=list(vector),
                          property=vector_property)  # fmt: skip
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


def _reason(ranked: Sequence[ScopeScore], pre: PreRanking, considered: int) -> str:
    among = (
        f" among the {len(pre.retrieve)} best pre-ranked of {considered} scopes ({pre.method})"
        if pre.method != "none" else ""
    )  # fmt: skip
    if not ranked:
        return "the only scope to search" + among
    best, rest = ranked[0], ranked[1:]
    runner_up = rest[0] if rest else None
    if best.best_cosine is not None:
        after = (f"; next {runner_up.scope!r} at {runner_up.best_cosine:.3f}"
                 if runner_up and runner_up.best_cosine is not None else "")  # fmt: skip
        return (f"the highest best-hit cosine to the question ({best.best_cosine:.3f}{after})"
                f"{among}")  # fmt: skip
    if best.hits:
        return (
            "no cosines to compare (no question embedding, or no stored embeddings): the "
            f"largest share of the question's key terms in its hits ({best.term_coverage:.2f})"
            f"{among}"
        )
    return "no scope returned evidence: the first by pre-ranking, then name" + among


def _pre_ranking_trace(pre: PreRanking, candidates: int) -> dict[str, Any]:
    retrieve = set(pre.retrieve)
    scopes = [
        {"scope": r.scope, "bestCosine": r.best_cosine, "bestFulltext": r.best_fulltext,
         "retrieved": r.scope in retrieve}
        for r in pre.ranked
    ]  # fmt: skip
    return {"method": pre.method, "candidates": candidates, "scopes": scopes}


def _score_trace(score: ScopeScore) -> dict[str, Any]:
    return {"scope": score.scope, "bestCosine": score.best_cosine,
            "termCoverage": score.term_coverage, "hits": score.hits}  # fmt: skip


def _since(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 2)
