"""answer_question: the evidence path from question to response, one stage after another.

plan_query -> retrieve_spans -> build_graph_context -> augment_documents -> build_context_pack
-> review_sufficiency (+ the optional LLM judge, once) -> at most one recovery pass ->
compose_answer -> release (gates, revision) -> claim mapping and quote verification. The trace
is assembled from what the stages return, plus every Cypher statement the question ran (name,
parameters, time, rows), so the whole neighbour selection can be replayed in Neo4j Browser.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Protocol, TypedDict

import msgspec

from service.answer.asked_value import sought, with_asked_value
from service.answer.claims import map_claims, verify_quotes
from service.answer.composer import Draft, caveats, compose_answer, profile_of
from service.answer.failures import classify_failures
from service.answer.generation import generate_answer
from service.answer.judge import ChatCompleter, JudgeOutcome, apply_verdict, judge
from service.answer.llm import client_from_settings
from service.answer.recovery import (
    decision_counts,
    recovery_policy,
    recovery_settings,
    should_recover,
)
from service.answer.release import release
from service.answer.sentences import evidence_sentences
from service.answer.sufficiency import (
    DocumentValidity,
    EvidenceSupport,
    SufficiencyReview,
    cosine,
    residual_cosines,
    review_sufficiency,
    settles_answerability,
)
from service.answer.typed_value import TypedValue, check_typed_value, missing_value_caveat
from service.db.graph import Graph
from service.embedding_space import DEFAULT_SPACE, Binding, bind_embedder
from service.errors import KgsError
from service.pipeline.augment import Augmentation, augment_documents
from service.pipeline.context_pack import (
    DEFAULT_PACK_POLICY,
    PackPolicy,
    RagContextPack,
    build_context_pack,
)
from service.pipeline.graph_context import GraphContext, build_graph_context
from service.pipeline.plan import Depth, QueryPlan, plan_query
from service.pipeline.retrieval import Hit, Retrieval, retrieve_spans
from service.pipeline.scope_words import plan_in_scope_words
from service.question import trace
from service.settings import (
    AnswerSettings,
    ConflictSettings,
    GenerationSettings,
    PipelineSettings,
    Settings,
)
from service.text.relation_labels import compact_key
from service.text.spans import split_sentences

__all__ = [
    "QueryEmbedder",
    "QuestionError",
    "Retrieved",
    "StageSettings",
    "answer_question",
    "check_question",
    "default_llm",
    "embed_in_background",
    "embed_in_chunks",
    "stage_settings",
]


class StageSettings(TypedDict):
    """The sections of Settings that answer_question and answer_best_scope take."""

    settings: PipelineSettings
    answer_settings: AnswerSettings
    conflict_settings: ConflictSettings
    generation_settings: GenerationSettings


def stage_settings(settings: Settings) -> StageSettings:
    """`settings`' evidence, answer and conflict sections, as keyword arguments."""
    return StageSettings(settings=settings.pipeline, answer_settings=settings.answer,
                         conflict_settings=settings.conflicts,
                         generation_settings=settings.generation)  # fmt: skip


class QuestionError(KgsError, ValueError):
    """The question itself is unusable (empty, too long); the message says why."""

    http_status = 400


class QueryEmbedder(Protocol):
    def embed(self, texts: Sequence[str]) -> list[list[float]]: ...


# Query embeddings run beside retrieval's lexical reads (Neo4j waits, the model computes).
# The embedder runs one model call at a time and merges the texts of callers waiting for it,
# so these workers mostly wait: as many as answers computed at once (KGS_API_MAX_CONCURRENT_
# ANSWERS' default), so that concurrent answers' texts can share one call.
QUERY_EMBEDDING_WORKERS = 4
_QUERY_EMBEDDING = ThreadPoolExecutor(
    max_workers=QUERY_EMBEDDING_WORKERS, thread_name_prefix="query-embedding"
)


def embed_in_background(embedder: QueryEmbedder, text: str) -> Future[list[float]]:
    """The question's embedding, computed while retrieval's first reads wait on Neo4j."""
    return _QUERY_EMBEDDING.submit(lambda: embedder.embed([text])[0])


@functools.cache
def default_llm() -> ChatCompleter | None:
    """The provider configured by KGS_LLM_* (read once), or None: the usual, no-LLM case."""
    return client_from_settings(Settings.from_env().llm)


def check_question(query: str, settings: PipelineSettings) -> None:
    """QuestionError when the question itself is unusable."""
    if not query.strip():
        raise QuestionError("the question is empty")
    if len(query) > settings.max_query_chars:
        raise QuestionError(f"the question is longer than {settings.max_query_chars} characters")


class Retrieved(msgspec.Struct, frozen=True, kw_only=True):
    """A question's plan and retrieval in one scope, done before answer_question: a question
    without a scope is retrieved in every readable scope to choose one (scope_choice.py)."""

    plan: QueryPlan
    retrieval: Retrieval
    vector: list[float] | None  # the question's embedding
    timings_ms: dict[str, float]  # the stages already run (plan, retrieval, ...)
    binding: Binding  # the model that embedded it (service/embedding_space.py)


class _Pass(msgspec.Struct, frozen=True, kw_only=True):
    context: GraphContext
    augmentation: Augmentation
    pack: RagContextPack
    review: SufficiencyReview


def answer_question(
    graph: Graph,
    embedder: QueryEmbedder | None,
    query: str,
    *,
    scope: str,
    depth: Depth | None = None,
    top_k: int | None = None,
    settings: PipelineSettings | None = None,
    answer_settings: AnswerSettings | None = None,
    conflict_settings: ConflictSettings | None = None,
    llm: ChatCompleter | bool | None = True,
    retrieved: Retrieved | None = None,
    generator: ChatCompleter | None = None,
    generation_settings: GenerationSettings | None = None,
    on_sentence: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """`llm`: True = the provider configured in the environment (if any); False/None = none;
    or a client (tests pass one pointing at a fake OpenAI-compatible server). `retrieved`: the
    plan and retrieval already done in `scope` (the caller's trace holds their Cypher).
    `generator`: a provider that writes the answer from the pack (service/answer/generation.py);
    None: the composed answer. `on_sentence`: hears each written sentence as it is written
    (POST /v1/query/stream)."""
    settings = settings or PipelineSettings()
    answer_settings = answer_settings or AnswerSettings()
    client = default_llm() if llm is True else (llm or None)
    check_question(query, settings)
    run = graph.child()
    timings: dict[str, float] = {}
    started = time.perf_counter()

    def lap(stage: str) -> None:
        nonlocal started
        now = time.perf_counter()
        timings[stage] = round(timings.get(stage, 0.0) + (now - started) * 1000, 2)
        started = now

    if retrieved is None:
        binding = bind_embedder(graph, embedder)
        embedder, space = binding.embedder, binding.space or DEFAULT_SPACE
        plan = plan_query(query, scope, depth)
        lap("plan")
        embedding = embed_in_background(embedder, plan.query) if embedder is not None else None
        corrected = plan_in_scope_words(run, plan, settings)
        if corrected is not plan and embedder is not None:  # embed what the user meant
            embedding = embed_in_background(embedder, corrected.query)
        plan = corrected
        retrieval = retrieve_spans(run, plan, embedding, settings, top_k=top_k, space=space)
        vector = embedding.result() if embedding is not None else None
        lap("retrieval")
    else:
        plan, retrieval, vector = retrieved.plan, retrieved.retrieval, retrieved.vector
        binding = retrieved.binding
        embedder, space = binding.embedder, binding.space or DEFAULT_SPACE
        timings.update(retrieved.timings_ms)
    named = {compact_key(n.matched): n.id for n in retrieval.names}
    operand_points = [(n.operand, n.id) for n in retrieval.names if n.operand is not None]
    # The candidate paragraphs' sentences embed while graph context and augmentation read Neo4j.
    candidates = answerability_candidates(retrieval.hits, answer_settings)
    sentences = _answerability_sentences(embedder, candidates, vector, answer_settings)
    supports: list[EvidenceSupport] | None = None
    validity: dict[str, DocumentValidity] = {}

    def one_pass(pass_settings: PipelineSettings, policy: PackPolicy) -> _Pass:
        nonlocal supports, validity  # read once, on the first pass
        context = build_graph_context(run, plan, retrieval, pass_settings)
        lap("graphContext")
        augmentation = augment_documents(
            run, plan, retrieval, context, pass_settings, conflict_settings
        )
        lap("augmentation")
        pack = build_context_pack(
            augmentation.fragments, plan.budget, observed_ids=augmentation.observed_ids,
            unavailable=augmentation.unavailable, policy=policy,
        )  # fmt: skip
        lap("contextPack")
        if supports is None:
            supports, validity = _support(
                run, retrieval, candidates, vector, sentences, space.vector_property,
                lambda s: settles_answerability(plan, (candidates[0].paragraph_id,
                                                       candidates[0].text), s, answer_settings),
            )  # fmt: skip
            lap("support")
        # Fewer supports than candidates when the best fused hit's settled the question.
        scored = [((h.paragraph_id, h.text), s) for h, s in zip(candidates, supports, strict=False)]
        review = review_sufficiency(
            plan, pack, context, named=named, operand_points=operand_points, validity=validity,
            candidates=scored, settings=answer_settings,
        )  # fmt: skip
        lap("sufficiency")
        return _Pass(context=context, augmentation=augmentation, pack=pack, review=review)

    first = one_pass(settings, DEFAULT_PACK_POLICY)
    if plan.intent == "generic" and any(f.step_starts for f in first.pack.fragments):
        # The evidence is the procedure the question names: it is answered as a how-to.
        plan = msgspec.structs.replace(plan, intent="how_to", reasons=(
            *plan.reasons, "intent=how_to: the best evidence is a procedure"))  # fmt: skip
    outcome: JudgeOutcome | None = None
    review = first.review
    if (
        client is not None
        and first.review.status != "insufficient"
        and (first.review.status == "borderline" or plan.depth == "deep")
        and any(f.role == "direct_support" for f in first.pack.fragments)
    ):
        outcome = judge(client, plan, first.pack, first.review, answer_settings)
        review = apply_verdict(first.review, outcome, answer_settings)
        lap("judge")
    first = msgspec.structs.replace(first, review=review)
    final = first
    recovery: dict[str, Any] = {
        "attempted": False,
        "passes": 0,
        "maxPasses": answer_settings.recovery_passes,
        "beforeStatus": first.review.status,
        "beforeDegradation": first.review.degradation,
        "beforeReasons": list(first.review.reasons),
        "beforeDecisionCounts": decision_counts(first.pack),
    }
    if should_recover(first.review, 0, answer_settings):
        wider = recovery_settings(settings, answer_settings)
        second = one_pass(wider, recovery_policy(answer_settings))
        adopted = _better(second.review, first.review)
        final = second if adopted else first
        recovery.update({
            "attempted": True,
            "passes": 1,
            "adopted": adopted,
            "changes": {
                "windowParagraphs": wider.window_paragraphs,
                "graphWindow": wider.graph_window,
                "parentSections": wider.parent_sections,
                "reserveShare": answer_settings.recovery_reserve_share,
            },
            "afterStatus": second.review.status,
            "afterDegradation": second.review.degradation,
            "afterReasons": list(second.review.reasons),
            "afterDecisionCounts": decision_counts(second.pack),
            "afterReplayId": second.pack.replay_id,
        })  # fmt: skip
    else:
        recovery["reason"] = (
            "not needed"
            if first.review.status == "sufficient"
            else ("not recoverable by wider reading: " + first.review.degradation)
        )
    context, pack, review = final.context, final.pack, final.review

    documents = {f.document_id for f in pack.fragments}
    paragraphs = [r for r in final.augmentation.paragraphs if r["documentId"] in documents]
    pool = evidence_sentences(pack, paragraphs)
    verified, rejected = verify_quotes(pool, paragraphs)
    pool = tuple(verified)
    abstaining = review.status == "insufficient" or not pool
    pages = _pages(paragraphs) if plan.answer_type else None
    if abstaining:
        draft = Draft(profile=profile_of(plan), sentences=())
    else:
        draft = compose_answer(plan, pack, pool, context, settings=answer_settings,
                               operand_points=operand_points)  # fmt: skip
        draft = with_asked_value(plan, draft, pool, pages)
        draft = Draft(profile=draft.profile,
                      sentences=(*draft.sentences, *caveats(review, pack, context)))  # fmt: skip
    draft, release_review = release(draft, plan, pack, pool, review, context,
                                    settings=answer_settings, abstaining=abstaining)  # fmt: skip
    if not abstaining and not any(s.kind != "caveat" for s in draft.sentences):
        abstaining = True  # release contracted every claim away
        draft = Draft(profile=draft.profile, sentences=())
    typed = check_typed_value(plan, draft, pages)
    lacks = typed.outcome == "missing" and review.degradation in ("none", "partial_coverage")
    if not abstaining and _value_settles(typed, review):
        # The asked value, about the asked subject, is quoted: words of the question the
        # evidence does not repeat ("grown-up", "wormed") are no part left unanswered.
        review = msgspec.structs.replace(review, status="sufficient", degradation="none")
        kept = tuple(s for s in draft.sentences if s.slot != "coverage")
        draft = Draft(profile=draft.profile, sentences=kept)
    if not abstaining and lacks:
        # Neither surely on point nor holding the asked value: no answer.
        if review.uncertain and review.degradation == "none":
            abstaining = True
            draft = Draft(profile=draft.profile, sentences=())
        else:
            draft = Draft(profile=draft.profile,
                          sentences=(*draft.sentences, missing_value_caveat(typed)))  # fmt: skip
    generation: dict[str, Any] | None = None
    if generator is not None:
        generation = {"requested": True, "used": False, "reason": "abstained"}
        if not abstaining:
            written = generate_answer(
                generator, plan, pack, pool, draft.profile, review, context,
                answer_settings=answer_settings,
                settings=generation_settings or GenerationSettings(),
                caveats=[s for s in draft.sentences if s.kind == "caveat"],
                on_sentence=on_sentence,
            )  # fmt: skip
            generation = written.trace
            if written.draft is not None and written.review is not None:
                draft, release_review = written.draft, written.review
        lap("generation")
    answer = (
        _abstention(plan, review, scope, retrieval, bool(pool), typed)
        if abstaining
        else trace.render(draft)
    )
    status = _status(review, abstaining, draft)
    texts = {f.id: f.text for f in pack.fragments}
    claims = [] if abstaining else map_claims(draft.sentences, texts)
    failures = classify_failures(
        hits=len(retrieval.hits), pack=pack, review=review, graph_error=context.error,
        judge_failure=outcome.failure if outcome else None,
        release_failed=release_review.failed_gates, rejected_quotes=len(rejected),
        unsupported_claims=sum(1 for c in claims if c.status == "unsupported"),
    )  # fmt: skip
    lap("answer")

    citations = trace.citations(draft.sentences, plan.scope) if not abstaining else []
    return {
        "answer": answer,
        "status": status,
        "assistantBlocks": [{"type": "answer", "text": answer}],
        "knowledgePoints": trace.knowledge_points(retrieval, context),
        "citations": citations,
        "structuredAnswer": {"directAnswer": answer, "profile": draft.profile},
        "evidenceStatus": trace.evidence_status(
            plan.scope, review, context, recovery, len(citations), pack.replay_id
        ),
        "trace": {
            "traceId": trace.trace_id(plan.query, scope, pack.replay_id),
            "plan": trace.camel(plan),
            "timingsMs": timings,
            "embedding": binding.trace(),
            "retrieval": trace.retrieval_trace(retrieval),
            "graphContext": trace.graph_trace(context),
            "ragContextPack": trace.pack_trace(pack, final.augmentation.documents_read),
            "procedureSearch": trace.procedure_trace(final.augmentation.procedure_search),
            "ragSufficiencyReview": trace.review_trace(review, outcome),
            "answerType": {**trace.camel(typed), "sought": sought(draft)},
            "ragRecovery": recovery,
            "ragFailureClassifications": [trace.camel(f) for f in failures],
            "answerReleaseReview": trace.camel(release_review),
            "answerClaimCitations": [trace.camel(c) for c in claims],
            **({"generation": generation} if generation is not None else {}),
            "cypher": [trace.camel(call) for call in run.calls],
        },
    }


# Per candidate hit: its sentences, and the future of their embeddings (the sentences, the same
# sentences under the hit's topic, then the topic), got by calling it: the best fused hit's
# are submitted at once, another's when first asked for.
_Embedding = Future[list[list[float]]]
_Sentences = list[tuple[tuple[str, ...], Callable[[], _Embedding]]]


def answerability_candidates(hits: Sequence[Hit], settings: AnswerSettings) -> list[Hit]:
    """The hits the answerability gate scores: the best fused hit, and those the vector channel
    ranks within `answerability_vector_ranks` and above it (a paragraph closer to the question's
    meaning can hold the answer where the best fused one only shares its words; one further
    from it would score lower on the paragraph cosine the score mostly weighs). The gate reads
    the best scoring of them."""
    if not hits:
        return []
    within = settings.answerability_vector_ranks
    best = min(hits[0].ranks.get("vector", within + 1), within + 1)
    return [hits[0], *(h for h in hits[1:] if h.ranks.get("vector", within + 1) < best)]


def _answerability_sentences(
    embedder: QueryEmbedder | None,
    candidates: Sequence[Hit],
    vector: Sequence[float] | None,
    settings: AnswerSettings,
) -> _Sentences | None:
    """Each candidate hit's first sentences, the same sentences under its topic (the title and
    headings its own embedding was computed under, as ingest prefixes a paragraph) and the
    topic, embedding in the background in small chunks (see _support, embed_in_chunks)."""
    if embedder is None or vector is None or not candidates:
        return None
    # Sentences only: pairs of sentences doubled the embedding time for little gain. Each
    # sentence goes twice: plain (the sentence cosine) and under its topic, which reads like its
    # paragraph ("Filming began in 2015" is about the page's series; the residual cosine). They
    # embed while Neo4j is read.
    # Only the best fused hit's embed at once. Another candidate's embed when _support asks for
    # them, only if the best one's score leaves the gate's decision open: the model runs one
    # call at a time, and the answer waits for them.
    runs: _Sentences = []
    chunk = settings.answerability_embed_chunk_texts
    for n, hit in enumerate(candidates):
        texts = tuple(s.text for s in split_sentences(hit.text))[: settings.answerability_sentences]
        topic = _topic(hit)
        batch = [*texts, *(f"{topic}\n{text}" for text in texts), topic]
        task = _embedding_task(embedder, batch, chunk)
        if n == 0:
            task = _submitted(task())
        runs.append((texts, task))
    return runs


def _embedding_task(
    embedder: QueryEmbedder, texts: Sequence[str], size: int
) -> Callable[[], _Embedding]:
    """What submits the texts to the query-embedding worker (embed_in_chunks)."""
    return lambda: _QUERY_EMBEDDING.submit(embed_in_chunks, embedder, texts, size)


def _submitted(future: _Embedding) -> Callable[[], _Embedding]:
    return lambda: future


def embed_in_chunks(embedder: QueryEmbedder, texts: Sequence[str], size: int) -> list[list[float]]:
    """One vector per text, asking the model for at most `size` texts at a time: the model runs
    one call at a time, so other answers' question embeddings wait for one chunk, not all."""
    size = max(1, size)
    chunks = [list(texts[i : i + size]) for i in range(0, len(texts), size)]
    return [vector for chunk in chunks for vector in embedder.embed(chunk)]


def _topic(hit: Hit) -> str:
    """As ingest/units.py embedding_input puts it before the paragraph text."""
    return " > ".join((hit.title, *hit.heading_path[1:])) if hit.heading_path else hit.title


def _support(
    graph: Graph,
    retrieval: Retrieval,
    candidates: Sequence[Hit],
    vector: Sequence[float] | None,
    sentences: _Sentences | None,
    vector_property: str,
    settled: Callable[[EvidenceSupport], bool],
) -> tuple[list[EvidenceSupport], dict[str, DocumentValidity]]:
    """The EvidenceSupport of each candidate hit (answerability_candidates) while the best fused
    hit's does not settle the question (`settled`: no other candidate's score could change what
    the gate decides), and the validity of every hit's document."""
    ids = [h.paragraph_id for h in retrieval.hits]
    if not ids:
        return [], {}
    rows = graph.read("answer/evidence_support", paragraphIds=ids, vector=list(vector or []),
                      property=vector_property)  # fmt: skip
    stored = {str(r["paragraphId"]): float(r["cosine"]) for r in rows if r["cosine"] is not None}
    validity = {
        str(r["documentId"]): DocumentValidity(
            document_id=str(r["documentId"]), path=str(r["path"]), updated=r["updated"],
            valid_until=r["validUntil"], superseded_by=r["supersededBy"],
        )
        for r in rows
    }  # fmt: skip
    supports: list[EvidenceSupport] = []
    for n, hit in enumerate(candidates):
        texts: tuple[str, ...] = ()
        cosines: tuple[float, ...] = ()
        topic_cosine = residual = None
        if sentences is not None and vector is not None:
            texts, embedding = sentences[n]
            *embedded, topic = embedding().result()
            plain, in_context = embedded[: len(texts)], embedded[len(texts) :]
            cosines = tuple(cosine(vector, e) for e in plain)
            topic_cosine = cosine(vector, topic)
            residual = max(residual_cosines(vector, topic, in_context), default=None)
        others = [stored[h.paragraph_id] for h in retrieval.hits
                  if h.document_id != hit.document_id and h.paragraph_id in stored]  # fmt: skip
        supports.append(EvidenceSupport(
            cosine=stored, sentence_cosine=max(cosines) if cosines else None, sentences=texts,
            sentence_cosines=cosines, topic=" ".join((hit.title, *hit.heading_path)),
            topic_cosine=topic_cosine, residual_sentence_cosine=residual,
            fulltext_rank=hit.ranks.get("fulltext"), vector_rank=hit.ranks.get("vector"),
            other_document_cosine=max(others, default=None),
        ))  # fmt: skip
        if n == 0 and settled(supports[0]):
            break
    return supports, validity


_STATUS_RANK = {"sufficient": 2, "borderline": 1, "insufficient": 0}


def _better(after: SufficiencyReview, before: SufficiencyReview) -> bool:
    """Adopt the recovered pass when it is at least as good and not worse in score."""
    a, b = _STATUS_RANK[after.status], _STATUS_RANK[before.status]
    return a > b or (a == b and after.score > before.score)


def _value_settles(typed: TypedValue, review: SufficiencyReview) -> bool:
    """A typed question's answer holds its value about its subject (check_typed_value), and
    the review found it partial only because the evidence does not repeat some of its words."""
    failed = {g.name for g in review.gates if not g.passed}
    return (
        typed.outcome == "present"
        and review.degradation == "partial_coverage"
        and failed == {"direct_evidence_coverage"}
    )


def _status(review: SufficiencyReview, abstaining: bool, draft: Draft) -> str:
    """The public status: `partial` names what is missing (a term, the asked-for value, the
    rest of a procedure); a fully supported answer is `answered`."""
    if abstaining:
        return "abstained"
    lacking = any(s.slot in ("missing_value", "procedure_rest") for s in draft.sentences)
    if lacking and review.degradation == "none":
        return "partial"
    return {
        "conflict": "conflict", "stale_evidence": "stale", "partial_coverage": "partial",
        "insufficient_evidence": "partial",
    }.get(review.degradation, "answered")  # fmt: skip


def _abstention(
    plan: QueryPlan,
    review: SufficiencyReview,
    scope: str,
    retrieval: Retrieval,
    quoted: bool,
    typed: TypedValue,
) -> str:
    """The refusal, with the reason that decided it: nothing found, the closest passages not
    answering what is asked (the answerability gate), key terms missing, or no sentence of the
    evidence surviving the quote checks and the release review. Sources are named in the trace,
    not here: a refusal quotes nothing."""
    lead = f"I could not find an answer in scope {scope!r}"
    if not retrieval.hits:
        return f"{lead}: nothing in it matches the question."
    gate = next((g for g in review.gates if g.name == "answerability" and not g.passed), None)
    if gate is not None:
        return (f"{lead}: the closest passages found do not answer what is asked (answerability "
                f"{gate.score:.2f}, below {review.answerability_threshold:.2f}).")  # fmt: skip
    if review.status == "insufficient" and review.missing_terms:
        missing = ", ".join(f"'{t}'" for t in review.missing_terms[:4])
        return f"{lead}: the sources found do not mention {missing}."
    if typed.outcome == "missing" and review.status != "insufficient":
        return f"{lead}: the sources found do not state the {typed.noun} asked for."
    if not quoted or review.status != "insufficient":
        return f"{lead}: no sentence of the evidence found could be quoted as an answer."
    return f"{lead}: the sources found do not support an answer."


def _pages(paragraphs: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """Paragraph id -> the text of its whole document, as read for this answer: its paragraphs
    in reading order, joined by line breaks (the first line is the page's opening, which
    typed_value reads as naming the page's subject)."""
    texts: dict[str, list[str]] = {}
    for row in paragraphs:
        texts.setdefault(str(row["documentId"]), []).append(str(row["text"]))
    pages = {d: "\n".join(t) for d, t in texts.items()}
    return {str(r["paragraphId"]): pages[str(r["documentId"])] for r in paragraphs}
