"""The sufficiency review: is the evidence enough, partial, stale or in conflict for the
question."""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from collections.abc import Mapping, Sequence

from service.answer.sufficiency.answerability import _answerability, _inputs, answerability_features
from service.answer.sufficiency.frames import ANSWER_FRAMES
from service.answer.sufficiency.model import (
    _CAUSAL,
    _CONSEQUENCE_HEADING,
    _DEFINES,
    _STEPS,
    Degradation,
    DocumentValidity,
    EvidenceSupport,
    Gate,
    Status,
    SufficiencyReview,
)
from service.answer.sufficiency.tasks import FAMILIES, tasks_named
from service.answer.sufficiency.terms import has_term, stems
from service.pipeline.context_pack import RagContextPack
from service.pipeline.evidence import Fragment
from service.pipeline.graph_context import GraphContext
from service.pipeline.plan import QueryPlan, asks_for_steps
from service.pipeline.procedure import (
    SUBTASK,
    asked_tasks,
    heading_task,
    opposite_task,
    own_heading,
    tasks_done,
)
from service.settings import AnswerSettings
from service.text.relation_labels import compact_key
from service.text.stems import stem

__all__ = ["review_sufficiency", "stale_documents"]


def review_sufficiency(
    plan: QueryPlan,
    pack: RagContextPack,
    context: GraphContext,
    *,
    named: Mapping[str, str],
    operand_points: Sequence[tuple[int, str]] = (),
    validity: Mapping[str, DocumentValidity] | None = None,
    candidates: Sequence[tuple[tuple[str, str], EvidenceSupport]] = (),
    settings: AnswerSettings,
    today: dt.date | None = None,
) -> SufficiencyReview:
    """`named`: compact name -> knowledge point id of names found in the question;
    `operand_points`: (operand index, knowledge point id); `candidates`: ((paragraph id,
    text), support) of the hits the answerability gate scores (answerability_candidates), the
    best fused hit first; the gate reads it unless another confidently answers."""
    fragments = pack.fragments
    direct = [f for f in fragments if f.role == "direct_support"]
    gates: list[Gate] = []
    reasons: list[str] = []

    # A term counts as covered when the pack shows it in a direct document's own reading (the
    # span, its section or its window): the source found names it, whatever span matched.
    own = {f.document_id for f in direct}
    readings = [f for f in fragments if f.document_id in own and f.role in _OWN_READINGS]
    procedure = next((f for f in direct if f.step_starts), None)
    # A how-to is answered by its procedure: what other pages name is not in the answer (the
    # router's firmware steps do not update the e-bike's drive unit the question names). A
    # question without a cue whose evidence is a procedure is answered as a how-to too (runner).
    answering = [*direct, *readings]
    if plan.intent in ("how_to", "generic") and procedure is not None:
        answering = [f for f in answering if f.document_id == procedure.document_id]
    covered, missing = _coverage(plan, answering, named)
    # A procedure for another task ("Calibrating the torque sensor" for how to replace it) is
    # no answer to how to do the asked one: the words naming the asked task are not covered.
    other_task = _other_task(plan, procedure) if procedure is not None else ()
    covered = [t for t in covered if t not in other_task]
    missing = [*other_task, *(t for t in missing if t not in other_task)]
    # A procedure found in other words ("stored fault reset steps" / "Clearing a stored error
    # code") may lack terms: a how-to then gets it as partial, naming them, rather than refused;
    # not a procedure for another task.
    shown = (
        procedure is not None
        and procedure.procedure_named >= settings.procedure_partial_share
        and asks_for_steps(plan)
        and not other_task
        and bool(missing)
    )
    # The product's name is what a manual's task page leaves out ("winter storage steps for
    # the Voltride" over "Preparing the bike for winter storage"): a name its manual's other
    # pages give is covered, and a procedure lacking nothing else answers.
    implied = (
        _manual_names(missing, procedure, fragments) if shown and procedure is not None else ()
    )
    covered += implied
    missing = [t for t in missing if t not in implied]
    terms = [t for t in plan.terms if t not in ANSWER_FRAMES]
    coverage = len(covered) / len(terms) if terms else (1.0 if direct else 0.0)
    operands_ok, operand_detail = _operands(plan, direct, operand_points)
    gates.append(
        Gate(
            name="direct_evidence_coverage",
            passed=bool(direct) and coverage >= settings.sufficient_coverage and operands_ok,
            score=round(coverage, 3),
            detail=f"direct support covers {len(covered)} of {len(terms)} key terms"
            + (f"; missing: {', '.join(missing)}" if missing else "")
            + (f"; {operand_detail}" if operand_detail else ""),
        )
    )

    # The best fused hit's verdict, unless another candidate confidently answers: a paragraph
    # the question's meaning points at can hold the answer the best one only names the words
    # of, but a merely likelier one is no reason to overturn a refusal.
    features, answerability, chosen = None, None, None
    for n, (paragraph, support) in enumerate(candidates):
        mine = answerability_features(plan, paragraph, support)
        score = _answerability(mine, settings)
        if n == 0 or (
            score is not None
            and score >= settings.answerability_confident_threshold
            and score > (answerability or 0.0)
        ):
            features, answerability, chosen = mine, score, paragraph[0]
    # A procedure whose headings name the question is what a how-to asks for, however little
    # its sentences resemble the question (the answerability features read sentences).
    names_itself = _names_the_concept(plan, direct, named) or any(
        f.procedure_named >= settings.procedure_named_share for f in direct
    )
    named_by_manual = shown and not missing  # it lacked only names its manual gives
    if answerability is not None:
        passed = (
            answerability >= settings.answerability_threshold or names_itself or named_by_manual
        )
        gates.append(
            Gate(
                name="answerability",
                passed=passed,
                score=round(answerability, 3),
                detail=f"best evidence supports the question with score {answerability:.2f} "
                f"(threshold {settings.answerability_threshold})"
                + ("; the question only names a concept its own document describes"
                   if names_itself else "")
                + (f"; the procedure lacks only names its manual gives: {', '.join(implied)}"
                   if named_by_manual else ""),
            )
        )  # fmt: skip

    uncertain = (
        answerability is not None
        and not names_itself
        and settings.answerability_threshold
        <= answerability
        < settings.answerability_confident_threshold
    )
    intent_ok, intent_detail = _intent(plan, fragments, direct, readings, operands_ok)
    if procedure is not None and other_task:
        intent_ok, intent_detail = False, (
            f"the procedure found ({' > '.join(procedure.heading_path)}) is for another task "
            f"than {', '.join(other_task)}")  # fmt: skip
    gates.append(
        Gate(name="query_intent_coverage", passed=intent_ok, score=1.0 if intent_ok else 0.0,
             detail=intent_detail)
    )  # fmt: skip

    lost = [d for d in pack.decisions if d.status == "source_window_unavailable"]
    window = (*context.predecessors, *context.successors)
    neighbours = len(window)
    with_text = sum(1 for f in fragments if f.role == "graph_neighbor_support")
    # A neighbour whose own document is already in the pack (the other side of a comparison,
    # read as direct support) is evidenced by that text.
    points = {f.knowledge_point_id for f in fragments}
    documents = {f.document_id for f in fragments}
    evidenced = sum(1 for n in window if n.id in points or n.document_id in documents)
    if not context.available:
        graph_ok, graph_detail = True, "graph unavailable: document-only context"
    elif lost:
        graph_ok = False
        graph_detail = (
            f"graph_neighbor_evidence_missing: {len(lost)} of {neighbours} neighbour source "
            "windows unavailable (known by title and relation only)"
        )
    elif neighbours and not evidenced:
        graph_ok, graph_detail = False, "graph_neighbor_evidence_missing: no neighbour text"
    else:
        graph_ok = True
        graph_detail = (
            f"{evidenced} of {neighbours} graph neighbours evidenced by text in the context "
            f"({with_text} neighbour fragments)"
        )
    gates.append(
        Gate(name="graph_support", passed=graph_ok,
             score=1.0 if graph_ok else (with_text / max(neighbours, 1)), detail=graph_detail)
    )  # fmt: skip

    citable = [f for f in direct if f.citation_ids]
    gates.append(
        Gate(
            name="citation_availability",
            passed=bool(direct) and len(citable) == len(direct),
            score=len(citable) / len(direct) if direct else 0.0,
            detail=f"{len(citable)} of {len(direct)} direct fragments carry citation ids",
        )
    )

    within = pack.total_chars <= pack.budget.total_chars and len(fragments) <= pack.budget.fragments
    squeezed = [
        d for d in pack.decisions
        if d.status in ("fragment_dropped", "fragment_truncated")
        and not d.reason.startswith(("duplicate_of", "unobserved", "empty"))
    ]  # fmt: skip
    squeezed_direct = [d for d in squeezed if d.role == "direct_support"]
    gates.append(
        Gate(
            name="budget_compliance",
            passed=within,
            score=1.0 if within else 0.0,
            detail=f"{pack.total_chars} of {pack.budget.total_chars} chars, {len(fragments)} of "
            f"{pack.budget.fragments} fragments; {len(squeezed)} truncated or dropped by the "
            f"budget ({len(squeezed_direct)} direct)",
        )
    )

    conflicts = [f for f in fragments if f.role == "conflict"]
    gates.append(
        Gate(
            name="conflict",
            passed=not conflicts,
            score=0.0 if conflicts else 1.0,
            detail=f"conflicting_evidence: {len(conflicts)} conflict fragments"
            if conflicts else "no conflicting evidence",
        )
    )  # fmt: skip

    stale = stale_documents(direct, validity or {}, today or dt.date.today())
    gates.append(
        Gate(
            name="temporal_validity",
            passed=not stale,
            score=0.0 if stale else 1.0,
            detail=("stale_evidence: " + "; ".join(stale.values())) if stale
            else "no cited document is expired or superseded",
        )
    )  # fmt: skip

    failed = {g.name for g in gates if not g.passed}
    status: Status
    degradation: Degradation
    if not direct:
        status, degradation = "insufficient", "insufficient_evidence"
        reasons.append("no direct evidence in scope")
    elif "answerability" in failed and not shown:
        status, degradation = "insufficient", "insufficient_evidence"
    elif conflicts:
        status, degradation = "borderline", "conflict"
    elif coverage < settings.borderline_coverage and answerability is None:
        # Without the (calibrated) answerability score, low term coverage is the best signal;
        # with it, low coverage only makes the answer partial (on ClapNQ half A this rule
        # declined 24 answerable questions for 11 unanswerable ones).
        status, degradation = "insufficient", "insufficient_evidence"
    elif stale:
        status, degradation = "borderline", "stale_evidence"
    elif (failed & {"query_intent_coverage", "graph_support", "answerability"}) or (
        "direct_evidence_coverage" in failed
        and (coverage < settings.partial_coverage or not operands_ok)
    ):
        # Partial names what it lacks: most of the question's terms, a compared side, the
        # steps of a how-to, a neighbour's text, the terms of a how-to that a procedure found in
        # other words does not name (answerability). A few terms the span does not repeat ("uses",
        # "help") leave the answer answered; the trace still lists them.
        status, degradation = "borderline", "partial_coverage"
    else:
        status, degradation = "sufficient", "none"
    reasons.extend(f"{g.name}: {g.detail}" if not g.detail.startswith(
        ("graph_neighbor", "conflicting", "stale")) else g.detail
        for g in gates if not g.passed)  # fmt: skip
    if uncertain:
        reasons.append(
            f"answerability: {answerability:.2f} is under "
            f"{settings.answerability_confident_threshold}: the evidence may not answer exactly "
            "what is asked"
        )
    if not reasons:
        reasons.append("all sufficiency gates passed")
    recoverable = (
        status != "sufficient"
        and bool(direct)
        and degradation in ("partial_coverage", "insufficient_evidence")
        and "answerability" not in failed
        and bool(missing or squeezed or lost or not intent_ok or not operands_ok)
    )
    score = sum(g.score for g in gates) / len(gates)
    return SufficiencyReview(
        method="deterministic_gates_v1",
        status=status,
        degradation=degradation,
        score=round(score, 3),
        reasons=tuple(reasons),
        gates=tuple(gates),
        covered_terms=tuple(covered),
        missing_terms=tuple(missing),
        recoverable=recoverable,
        answerability=None if answerability is None else round(answerability, 4),
        answerability_inputs=_inputs(features),
        answerability_paragraph=chosen if features is not None else None,
        answerability_threshold=settings.answerability_threshold,
        uncertain=uncertain,
        stale=tuple(stale),
    )


def stale_documents(
    fragments: Sequence[Fragment], validity: Mapping[str, DocumentValidity], today: dt.date
) -> dict[str, str]:
    """path -> why, for the documents of `fragments` that are expired or superseded."""
    stale: dict[str, str] = {}
    for fragment in fragments:
        info = validity.get(fragment.document_id)
        if info is None or info.path in stale:
            continue
        if info.superseded_by:
            stale[info.path] = f"{info.path} is superseded by {info.superseded_by}"
        elif info.valid_until and _date(info.valid_until) and _date(info.valid_until) < today:  # type: ignore[operator]
            stale[info.path] = f"{info.path} was valid until {info.valid_until}"
    return stale


def _date(value: str) -> dt.date | None:
    try:
        return dt.date.fromisoformat(value[:10])
    except ValueError:
        return None


_OWN_READINGS = frozenset(("parent_context", "adjacent_context"))


def _coverage(
    plan: QueryPlan, direct: Sequence[Fragment], named: Mapping[str, str]
) -> tuple[list[str], list[str]]:
    # The headings a passage sits under name what it is about ("Blazing Saddles" over a
    # paragraph on its casting): a term they hold is covered.
    text = _unaccented(" ".join(" ".join((*f.heading_path, f.text)).lower() for f in direct))
    compact = compact_key(text)
    # Another form of the word counts ("lubrication" under "Lubricating the drive spindle").
    stemmed = {stem(w) for w in re.findall(r"[a-z]{5,}", text)}
    supported = {f.knowledge_point_id for f in direct}
    # A word of a task family names its task ("changing the seal" / "Replacing the gasket").
    tasks = tasks_named(text, FAMILIES)
    covered: list[str] = []
    missing: list[str] = []
    for asked in plan.terms:
        if asked in ANSWER_FRAMES:
            continue
        term = _unaccented(asked)
        key = compact_key(term)
        hit = (
            term in text
            or (key and key in compact)
            or any(_unaccented(name) in key and kp in supported for name, kp in named.items())
            or (len(term) > 4 and term.isascii() and term[:-1] in text)  # plural/inflection
            or (len(term) > 4 and term.isascii() and term.isalpha() and stem(term) in stemmed)
            or bool(tasks_named(term, FAMILIES) & tasks)
        )
        (covered if hit else missing).append(asked)
    return covered, missing


def _manual_names(
    missing: Sequence[str], procedure: Fragment, fragments: Sequence[Fragment]
) -> tuple[str, ...]:
    """The `missing` terms that another page of the procedure's manual (its folder) writes as a
    name: a model code ("M500") or a word capitalised inside a sentence ("The Voltride
    PowerTube 625"). A name only the question gives, or one of another folder's product, stays
    missing."""
    folder = procedure.path.rpartition("/")[0]
    text = "\n".join(
        f.text for f in fragments
        if f.document_id != procedure.document_id and f.path.rpartition("/")[0] == folder
    )  # fmt: skip
    found: list[str] = []
    for term in missing:
        if not re.fullmatch(r"\w+", term):
            continue
        if re.search(r"\d", term) and re.search(r"[^\W\d_]", term):  # a model code, any case
            pattern = rf"\b(?i:{re.escape(term)})\b"
        else:  # a word capitalised after another word of its sentence
            pattern = rf"(?<=[\w,] ){re.escape(term[:1].upper() + term[1:])}\b"
        if re.search(pattern, text):
            found.append(term)
    return tuple(found)


def _unaccented(text: str) -> str:
    """Without diacritics: a question typed on a plain keyboard names "Hōryū-ji" as "horyu
    ji"."""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def _operands(
    plan: QueryPlan, direct: Sequence[Fragment], operand_points: Sequence[tuple[int, str]]
) -> tuple[bool, str]:
    if plan.intent != "compare" or len(plan.operands) < 2:
        return True, ""
    supported = {f.knowledge_point_id for f in direct}
    text = compact_key(" ".join(f.text for f in direct))
    sides = []
    for index, operand in enumerate(plan.operands):
        points = {kp for i, kp in operand_points if i == index}
        words = [w for w in re.findall(r"\w+", operand.lower()) if len(w) > 2]
        by_text = bool(words) and all(compact_key(w) in text for w in words[-1:])
        sides.append(bool(points & supported) or by_text)
    missing = [plan.operands[i] for i, ok in enumerate(sides) if not ok]
    if missing:
        return False, f"no direct support for compare operand(s): {', '.join(missing)}"
    return True, "both compare operands have direct support"


def _other_task(plan: QueryPlan, procedure: Fragment) -> tuple[str, ...]:
    """The question's terms that name the task it asks how to do, when the procedure's own
    name (a task of running text's "To ...:", else its heading) names another task and not
    that one: another word family of tasks.TASKS ("replacing" against "Calibrating the torque
    sensor"); otherwise the opposite removal or installation of the same thing, when the name
    opens with it (procedure.heading_task: "Remove a satellite" against "Adding a satellite
    node", not "remove limescale" against "Adding descaler" nor "remove the bracket" against
    "Mounting bracket"). When no term of the question is the verb ("get the battery out"), the
    task's name ("remove") is reported. () when no such mismatch is read."""
    task = SUBTASK.match(procedure.text)
    heading = task.group("task") if task else own_heading(procedure.heading_path)
    asked, done = tasks_named(plan.query), tasks_named(heading)
    if asked and done:
        return () if asked & done else tuple(t for t in plan.terms if tasks_named(t) & asked)
    asked, done = asked_tasks(plan.query), heading_task(heading)
    words = stems(heading)
    if (
        len(asked) == 1
        and done == {opposite_task(*asked)}
        and any(has_term(heading, t, words) for t in plan.terms)
    ):
        return tuple(t for t in plan.terms if tasks_done(t) & asked) or tuple(asked)
    return ()


def _intent(
    plan: QueryPlan,
    fragments: Sequence[Fragment],
    direct: Sequence[Fragment],
    readings: Sequence[Fragment],
    operands_ok: bool,
) -> tuple[bool, str]:
    """`readings`: the sections and windows of the direct documents (review_sufficiency)."""
    text = "\n".join(f.text for f in fragments if f.role != "background")
    if plan.intent == "how_to":
        ok = bool(_STEPS.search(text)) or any(f.step_starts for f in direct)
        return ok, "steps found in the evidence" if ok else "a how-to needs steps; none found"
    if plan.intent == "causal":
        if not _CAUSAL.search(text):
            return False, "a causal answer needs mechanism or consequence; none found"
        # A consequence section hit only as a span: the consequence itself may sit in the
        # sentences around it, which only its section (parent context) shows.
        sections = {(f.document_id, f.heading_path) for f in fragments
                    if f.role == "parent_context"}  # fmt: skip
        cut = [
            f for f in direct
            if any(_CONSEQUENCE_HEADING.search(h) for h in f.heading_path)
            and (f.document_id, f.heading_path) not in sections
        ]  # fmt: skip
        if cut:
            return False, (
                f"causal consequence seen only as {len(cut)} spans; its section is not in the "
                "context"
            )
        return True, "mechanism or consequence found in the evidence"
    if plan.intent == "compare":
        return operands_ok, "both sides present" if operands_ok else "one compare side missing"
    if plan.intent == "definition":
        if any(t in ANSWER_FRAMES for t in plan.terms):
            # "What are the three components of the fire triangle?" asks for its parts, not
            # what it is: the coverage judges the answer.
            return True, "asks for a part of the subject, not what it is"
        # The defining sentence may go on past a span the splitter cut ("The Defense of
        # Marriage Act (DOMA) (Pub. L. 104-199 ...) was a United States federal law").
        ok = any(_DEFINES.search(f.text) for f in (*direct, *readings))
        return ok, "a defining sentence found" if ok else "no defining sentence in direct support"
    return True, "generic question: key-term coverage decides"


def _names_the_concept(
    plan: QueryPlan, direct: Sequence[Fragment], named: Mapping[str, str]
) -> bool:
    """Every key term is part of a knowledge point name found in the question, and that
    knowledge point has direct support: the question asks about the concept itself ('tell me
    about optical bench drift'), which its own document answers whatever the wording."""
    if not plan.terms or not named:
        return False
    supported = {f.knowledge_point_id for f in direct}
    names = [name for name, kp in named.items() if kp in supported]
    return all(any(compact_key(t) in name for name in names) for t in plan.terms)
