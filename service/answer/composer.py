"""compose_answer: one public answer from the context pack, by answer profile, without any model.

Profiles (from the plan's intent):
- definition: the defining sentence, then its page's answer (_page_answer), the graph position
  (what comes before and after it, from neighbour evidence), caveats;
- how_to: with a whole procedure in the pack (Fragment.step_starts), that procedure in reading
  order, every step up to `procedure_max_steps` and a pointer to the rest; without one,
  prerequisites, the ordered steps, downstream checks, failure handling;
- compare: direct evidence for each operand first, then bounded contrast context; procedural
  sentences are not promoted unless the question compares procedures; Mermaid comparison edges
  become readable statements, fences never leak;
- causal_explain: mechanism, consequence, boundary;
- generic: the best-matching page's answer: its opening sentences and its other best-matching
  ones, in reading order (_page_answer), then the first sentence of each neighbour page.
Causal_explain and compare answers then quote the contiguous passage around their lead sentence
(the chosen sentences of its paragraph, gaps filled, a sentence before and two after;
AnswerSettings.*_passage_*), each compared side within its own paragraph; chosen sentences keep
their slots.
Conflict fragments come first and are kept whole: both values, never one picked; sentences that
state only one of the conflicting values are left out. Every sentence is an EvidenceSentence (or
a conflict/caveat line built from pack facts), so each keeps its citation.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

import msgspec

from service.answer.options import MENU_SLOT, asked_options, with_menus
from service.answer.sentences import EvidenceSentence, is_artifact, public_text
from service.pipeline.context_pack import RagContextPack
from service.pipeline.graph_context import GraphContext
from service.pipeline.plan import QueryPlan
from service.pipeline.procedure import STEP_HEADING
from service.settings import AnswerSettings
from service.text import tokens
from service.text.answer_types import holds_instance
from service.text.relation_labels import compact_key

__all__ = [
    "Draft",
    "DraftSentence",
    "Profile",
    "as_draft",
    "compose_answer",
    "conflict_lines",
    "conflict_values_of",
    "evidence_score",
    "profile_of",
    "select",
    "sentence_end",
]

Profile = Literal["definition", "how_to", "compare", "causal_explain", "generic"]
# generated: a sentence a model wrote (service/answer/generation.py)
Kind = Literal["evidence", "conflict", "caveat", "generated"]

_ROLE_WEIGHT = {
    "direct_support": 1.0, "conflict": 0.9, "parent_context": 0.8, "adjacent_context": 0.6,
    "graph_neighbor_support": 0.5, "background": 0.3,
}  # fmt: skip
# "X is a ...": the words before the verb are what it defines.
_DEFINING = re.compile(r"^(?P<subject>[^.]{0,80}?)\b(?:is|are|refers to|means|denotes)\b", re.I)
_PROCEDURAL = re.compile(
    r"^\s*step\s*\d|\bprocedure\b|\b(?:rinse|wash|load|unload|place|put|turn|tighten|loosen)\b",
    re.IGNORECASE,
)
_PREREQUISITE = re.compile(
    r"\b(?:must be|before (?:any|you|starting)|requires?|prerequisite)\b", re.I
)
_CHECK = re.compile(
    r"\b(?:verif\w*|check\w*|accepted|confirm\w*|after (?:calibration|the))\b", re.I
)
_FAILURE = re.compile(r"\b(?:if the|fails?|failure|troubleshoot\w*|stop and)\b", re.I)
_MECHANISM = re.compile(
    r"\b(?:because|mechanism|works by|by (?:\w+ing)|when|as the|so the)\b", re.I
)
_CONSEQUENCE = re.compile(
    r"\b(?:leads? to|results? in|causes?|therefore|so that|consequen\w*|downstream|"
    r"which means|overreach\w*|prevents?)\b",
    re.IGNORECASE,
)
_CONSEQUENCE_HEADING = re.compile(r"\b(?:consequences?|effects?|outcomes?)\b", re.I)
_VALUE = re.compile(r"\d")
_NUMBER = re.compile(r"\b\d+\b")  # a number the question names (plan terms hold none)
_BARE_STEP = re.compile(r"^(?:step\s*)?\d{1,2}\s*[.:)]?$", re.IGNORECASE)
_BOUNDARY = re.compile(r"\b(?:only|unless|limit\w*|bound\w*|at most|never|does not|cannot)\b", re.I)
_NEAR_DUPLICATE_CHARS = 40  # a longer sentence inside another chosen one is a repeat
_HOW_TO_COVERAGE = 0.3  # share of key terms an unlabelled how-to sentence must mention
_HOW_TO_MIN_STEPS = 2  # on-topic sentences that make an unnumbered procedure of a page
_CONTRAST = re.compile(
    r"\b(?:whereas|while|unlike|compared|contrast\w*|than|but|both|instead|differ\w*)\b", re.I
)


class DraftSentence(msgspec.Struct, frozen=True, kw_only=True):
    text: str  # public text
    kind: Kind
    evidence: tuple[EvidenceSentence, ...] = ()  # what supports it (quotes with offsets)
    fragment_ids: tuple[str, ...] = ()  # pack fragments behind it (conflict lines, caveats)
    citation_ids: tuple[str, ...] = ()
    slot: str = ""  # the profile slot it fills: definition, step, prerequisite, ...


class Draft(msgspec.Struct, frozen=True, kw_only=True):
    profile: Profile
    sentences: tuple[DraftSentence, ...]

    @property
    def text(self) -> str:
        return " ".join(s.text for s in self.sentences)


def profile_of(plan: QueryPlan) -> Profile:
    return "causal_explain" if plan.intent == "causal" else plan.intent


def compose_answer(
    plan: QueryPlan,
    pack: RagContextPack,
    pool: Sequence[EvidenceSentence],
    context: GraphContext,
    *,
    settings: AnswerSettings,
    operand_points: Sequence[tuple[int, str]] = (),
) -> Draft:
    profile = profile_of(plan)
    conflicts = conflict_lines(pack, pool)
    values = {v.casefold() for line in conflicts for v in conflict_values_of(line, pack)}
    latin = plan.query.isascii()
    usable = [
        s for s in pool
        if s.text and s.role != "conflict" and not _one_sided(s.text, values)
        and not (latin and _mostly_cjk(s.text))
    ]  # fmt: skip
    chosen = select(profile, plan, usable, settings, operand_points)
    sentences = _distinct([*conflicts, *_carry_headings(as_draft(chosen), plan)])
    if profile == "how_to":
        sentences += _procedure_rest(pack, usable, settings)
    return Draft(profile=profile, sentences=tuple(_bounded(sentences, settings)))


def _procedure_rest(
    pack: RagContextPack, pool: Sequence[EvidenceSentence], settings: AnswerSettings
) -> list[DraftSentence]:
    """The pointer to a procedure's steps the answer does not give: those past
    `procedure_max_steps`, or those a budget cut from the middle of the procedure."""
    fragment = next((f for f in pack.fragments if f.step_starts), None)
    if fragment is None or not any(s.fragment_id == fragment.id for s in pool):
        return []
    steps = len(fragment.step_starts)
    where = f"{fragment.path.rsplit('/', 1)[-1]}" + (
        f" ({' > '.join(fragment.heading_path)})" if fragment.heading_path else ""
    )
    if steps > settings.procedure_max_steps:
        bound = settings.procedure_max_steps
        text = (f"This procedure has {steps} steps; the first {bound} are given here, the "
                f"other {steps - bound} are in {where}.")  # fmt: skip
    elif fragment.truncated:
        text = f"Some steps of this procedure did not fit in this answer; all are in {where}."
    else:
        return []
    return [
        DraftSentence(
            text=text,
            kind="caveat",
            slot="procedure_rest",
            fragment_ids=(fragment.id,),
            citation_ids=fragment.citation_ids,
        )
    ]


def _distinct(sentences: Sequence[DraftSentence]) -> list[DraftSentence]:
    """Each text once: the same words quoted from two places (a conflict line and a chosen
    sentence, two copies of one page) would read as a repetition."""
    seen: set[str] = set()
    kept = []
    for sentence in sentences:
        key = compact_key(sentence.text)
        if key not in seen:
            seen.add(key)
            kept.append(sentence)
    return kept


def select(
    profile: Profile,
    plan: QueryPlan,
    pool: Sequence[EvidenceSentence],
    settings: AnswerSettings,
    operand_points: Sequence[tuple[int, str]] = (),
) -> list[tuple[str, EvidenceSentence]]:
    """(slot, sentence) pairs in answer order for the profile."""
    ranked = sorted(pool, key=lambda s: (-evidence_score(s, plan), s.order))
    taken: list[tuple[str, EvidenceSentence]] = []
    used: set[str] = set()

    def take(slot: str, candidates: Sequence[EvidenceSentence], limit: int) -> None:
        count = 0
        for sentence in candidates:
            key = compact_key(sentence.text)
            near = any(key in u or u in key for u in used if len(u) > _NEAR_DUPLICATE_CHARS)
            if count >= limit or key in used or near:
                continue
            used.add(key)
            taken.append((slot, sentence))
            count += 1

    direct = [s for s in ranked if s.role == "direct_support"]
    context = [s for s in ranked if s.role in ("parent_context", "adjacent_context")]
    neighbours = [s for s in ranked if s.role == "graph_neighbor_support"]
    relevant = [s for s in ranked if evidence_score(s, plan) > 0]
    procedure = sorted((s for s in pool if s.procedure_step is not None), key=lambda s: s.start)
    if profile == "how_to" and procedure:
        # The whole procedure, in reading order: its prerequisites, every step within the bound
        # however little a step resembles the question, its warnings and notes.
        take("procedure", [s for s in procedure
                           if (s.procedure_step or 0) <= settings.procedure_max_steps],
             len(procedure))  # fmt: skip
        take("failure", [s for s in pool if s.label.startswith("failure")
                         and s.procedure_step is None], 2)  # fmt: skip
    elif profile == "how_to":
        # One page: steps from several pages interleave into a procedure no page describes.
        anchor_docs = {s.document_id for s in direct[:1]}
        # Unlabelled sentences must be about the question (a distractor section of the same
        # page, e.g. the legacy variant of a procedure, is not); labelled ones are structure.
        same = sorted(
            (s for s in pool if s.document_id in anchor_docs
             and (s.label or s.step is not None or _coverage(s, plan) >= _HOW_TO_COVERAGE)),
            key=lambda s: s.order,
        )  # fmt: skip
        steps = sorted((s for s in same if s.step is not None), key=lambda s: (s.step, s.start))
        prereq = [
            s
            for s in same
            if s.label.startswith("prerequisite")
            or (s.step is None and _PREREQUISITE.search(s.quote) and not _FAILURE.search(s.quote))
        ]
        checks = [
            s
            for s in same
            if s.step is None
            and _CHECK.search(s.quote)
            and not s.label.startswith(("prerequisite", "failure"))
        ]
        failures = [
            s
            for s in same
            if s.label.startswith("failure")
            or (s.step is None and s.quote.lower().startswith("if "))
        ]
        numbered = bool(steps)
        if not numbered:  # unnumbered procedure: its on-topic sentences in reading order
            steps = [
                s
                for s in same
                if s.role in ("direct_support", "parent_context")
                and not s.label
                and _coverage(s, plan) >= _HOW_TO_COVERAGE
            ]
            steps.sort(key=lambda s: (s.document_id, s.start))
        if numbered:  # a procedure opens with its steps; the page's scope sentence adds nothing
            take("step", steps, settings.how_to_steps)
        elif len(steps) < _HOW_TO_MIN_STEPS and anchor_docs:
            # No sequence of steps on the page: one on-topic sentence is too little to act on,
            # so the page answers as its author opens it (the menu path often says nothing of
            # the question's words: "From Settings, tap Display > Blue light filter").
            page = _page_answer(next(iter(anchor_docs)), pool, ranked, settings)
            take("answer", page, len(page))
        else:
            take("overview", [s for s in direct if s.step is None and not s.label][:1], 1)
        take("prerequisite", prereq, 2)
        take(
            "prerequisite",
            _leads([s for s in neighbours if "PREREQUISITE" in (s.relation or "")]),
            1,
        )
        if not numbered:
            take("step", steps, settings.how_to_steps)
        take("check", checks, 1)
        take("failure", failures, 2)
    elif profile == "compare":
        procedural = bool(re.search(r"procedure|process|steps?|how to", plan.query, re.I))
        allowed = [s for s in ranked if procedural or not _PROCEDURAL.search(s.quote)]
        for index in range(max(len(plan.operands), 1)):
            points = {kp for i, kp in operand_points if i == index}
            words = _operand_words(plan, index)
            side = [
                s for s in allowed if s.role == "direct_support"
                and (s.knowledge_point_id in points or (words and words <= _word_set(s.text)))
            ] or [s for s in allowed if words and words <= _word_set(s.text)]  # fmt: skip
            # What the side is, then (when the evidence has one) a concrete value of it.
            take(f"operand_{index}", side, 1)
            take(f"operand_{index}", [s for s in side if _VALUE.search(s.text)] or side, 1)
        contrast = [
            s
            for s in allowed
            if s.role != "graph_neighbor_support"
            and (_CONTRAST.search(s.text) or s.kind in ("mermaid", "table"))
        ]
        take("contrast", contrast, 2)
        aligned = [
            s
            for s in allowed
            if s.role == "graph_neighbor_support"
            and any(k in (s.relation or "") for k in ("CONTRASTS", "ANALOGOUS"))
        ]
        take("graph_contrast", aligned, 1)
        # Each side's passage stays inside its own paragraph, around its own sentences, so one
        # side's evidence never speaks for the other; a sentence another side chose keeps its
        # side's slot.
        arranged: list[tuple[str, EvidenceSentence]] = []
        for index in range(max(len(plan.operands), 1)):
            picked = [s for slot, s in taken if slot == f"operand_{index}"]
            if picked:
                limits = _limits(settings, "compare")
                arranged += _around(taken, allowed, picked[0], limits, "passage", hull=picked)
                arranged += [(f"operand_{index}", s) for s in picked]
        taken = _unique([*arranged, *((t, s) for t, s in taken if not t.startswith("operand_"))])
    elif profile == "causal_explain":
        take("lead", direct, 1)
        take("mechanism", [s for s in direct + context if _MECHANISM.search(s.text)], 2)
        # A section the author titled as the consequence comes first, in reading order.
        titled = sorted((s for s in direct + context
                         if any(_CONSEQUENCE_HEADING.search(h) for h in s.heading_path)),
                        key=lambda s: s.order)  # fmt: skip
        take(
            "consequence",
            [s for s in titled + direct + context + neighbours if _CONSEQUENCE.search(s.text)],
            2,
        )
        take("graph", [s for s in neighbours if re.search("CAUSES|ENABLES", s.relation or "")], 2)
        take("boundary", [s for s in direct + context if _BOUNDARY.search(s.text)], 1)
        if taken and taken[0][0] == "lead":  # the lead's passage, then the slots outside it
            run = _around(taken, pool, taken[0][1], _limits(settings, "causal"), "passage")
            taken = _unique([*run, *taken])
    elif profile == "definition":
        # without a sentence that defines the asked thing, any saying what something is
        defining = (
            [s for s in direct if _defines(s, plan)]
            or [s for s in direct if _DEFINING.match(s.text)]
            or direct
        )
        take("definition", defining, 1)
        # Then the defined concept's own page as its author opens it (a sibling page with a
        # similar name is not about it), then its place in the graph.
        if defining:
            page = _page_answer(defining[0].document_id, pool, ranked, settings)
            take("attributes", page, len(page))
        leads = _leads([s for s in neighbours if s.kind != "mermaid"])
        take("graph_position", [s for s in leads if not _PROCEDURAL.search(s.quote)], 2)
    else:
        # The best-matching page answers (_page_answer).
        best = ([s for s in direct if s in relevant] or direct)[:1]
        if best:
            home = best[0].document_id
            chosen = _page_answer(home, pool, ranked, settings)
            take("answer", chosen, len(chosen))
            # Then where the page sits in the graph: the first sentence of each neighbour page
            # its relations lead to ("Drift is measured against the reference beam").
            prose = [s for s in neighbours if s.kind != "mermaid" and s.document_id != home]
            take("graph", _leads(prose), settings.generic_graph_sentences)
        else:
            take("support", [s for s in context if s in relevant], settings.generic_best_sentences)
    if profile in ("how_to", "generic"):  # the options asked about, of the menus it quotes
        asked = (*plan.terms, *_NUMBER.findall(plan.query))  # "tray 2" asks for Tray 2
        taken = asked_options(with_menus(taken, pool, settings.menu_options), asked, plan.query)
    return taken


def _page_answer(
    home: str,
    pool: Sequence[EvidenceSentence],
    ranked: Sequence[EvidenceSentence],
    settings: AnswerSettings,
) -> list[EvidenceSentence]:
    """A page's answer the way its author would give it: its first sentences (what the page is
    about), then the other sentences of it that match the question best (`ranked` order), in
    the page's reading order. Chosen on the fit halves of the public sets over a passage around
    the best sentence (docs/benchmarks.md, "Public sets")."""
    page = sorted((s for s in pool if s.document_id == home and s.kind != "mermaid"),
                  key=lambda s: s.start)  # fmt: skip
    lead = page[: settings.generic_lead_sentences]
    opening = {_key(s) for s in lead}
    matched = [s for s in ranked if s.document_id == home and s.kind != "mermaid"
               and _key(s) not in opening][: settings.generic_best_sentences]  # fmt: skip
    return sorted([*lead, *matched], key=lambda s: s.start)


Key = tuple[str, int, int]


def _key(sentence: EvidenceSentence) -> Key:
    return (sentence.paragraph_id, sentence.start, sentence.end)


def _span(
    anchor: EvidenceSentence,
    chosen: Sequence[EvidenceSentence],
    pool: Sequence[EvidenceSentence],
    limit: int,
    before: int,
    after: int,
) -> list[EvidenceSentence]:
    """The contiguous run of the anchor's paragraph that covers the chosen sentences in it (gaps
    filled), `before` more sentences before them and `after` more after, at most `limit`
    sentences in all, in reading order; [] when the passage is off. Answers are often explained
    over several adjacent sentences (ClapNQ's gold answers span about three); ranked picks alone
    skip the links between them and read as disjoint quotes."""
    if limit <= 0:
        return []
    paragraph = sorted(
        (s for s in pool if s.paragraph_id == anchor.paragraph_id and s.text), key=lambda s: s.start
    )
    position = {_key(s): i for i, s in enumerate(paragraph)}
    if _key(anchor) not in position:
        return []
    centre = position[_key(anchor)]
    picks = sorted({centre, *(position[_key(s)] for s in chosen if _key(s) in position)})
    lo, hi = picks[0], picks[-1]
    while hi - lo + 1 > limit:  # too long a hull: keep the side nearer the anchor
        if hi - centre >= centre - lo:
            hi -= 1
        else:
            lo += 1
    last = min(len(paragraph) - 1, hi + after, lo + limit - 1)
    first = max(0, lo - before, last - limit + 1)
    return paragraph[first : last + 1]


def _around(
    taken: Sequence[tuple[str, EvidenceSentence]],
    pool: Sequence[EvidenceSentence],
    anchor: EvidenceSentence,
    passage: tuple[int, int, int],
    filler: str,
    hull: Sequence[EvidenceSentence] | None = None,
) -> list[tuple[str, EvidenceSentence]]:
    """The anchor's passage (_span over `passage` = limit, before, after) around the `hull`
    sentences (default: all taken ones) in reading order; the taken sentences in it keep their
    slots, the sentences between and around them fill `filler`. Callers put the result where
    the anchor's slot belongs in their profile."""
    span = _span(anchor, [s for _, s in taken] if hull is None else hull, pool, *passage)
    if not span:
        return [(t, s) for t, s in taken if _key(s) == _key(anchor)][:1] or [(filler, anchor)]
    slots: dict[Key, str] = {}
    for slot, sentence in taken:
        slots.setdefault(_key(sentence), slot)
    return [(slots.get(_key(s), filler), s) for s in span]


def _limits(
    settings: AnswerSettings, profile: Literal["causal", "compare"]
) -> tuple[int, int, int]:
    """(longest passage, sentences before, sentences after) of a profile's passage."""
    if profile == "causal":
        return (settings.causal_passage_sentences, settings.causal_passage_before,
                settings.causal_passage_after)  # fmt: skip
    return (settings.compare_passage_sentences, settings.compare_passage_before,
            settings.compare_passage_after)  # fmt: skip


def _unique(taken: Sequence[tuple[str, EvidenceSentence]]) -> list[tuple[str, EvidenceSentence]]:
    """First occurrence of each sentence (a passage may hold a sentence another slot chose, or
    the same words as another page)."""
    seen: set[object] = set()
    kept = []
    for slot, sentence in taken:
        words = compact_key(sentence.text)
        if _key(sentence) not in seen and words not in seen:
            seen.update((_key(sentence), words))
            kept.append((slot, sentence))
    return kept


def _coverage(sentence: EvidenceSentence, plan: QueryPlan) -> float:
    if not plan.terms:
        return 1.0
    text = compact_key(sentence.text)
    words = _word_set(sentence.text)
    return sum(
        1 for t in plan.terms
        if t in words or (len(t) > 4 and t[:-1] in text) or compact_key(t) in text
    ) / len(plan.terms)  # fmt: skip


def evidence_score(sentence: EvidenceSentence, plan: QueryPlan) -> float:
    # A sentence holding a value of the asked type ("three years" for "how long") answers.
    typed = 0.3 if plan.answer_type and holds_instance(sentence.text, plan.answer_type) else 0.0
    if not plan.terms:
        return _ROLE_WEIGHT.get(sentence.role, 0.1) + typed
    text = compact_key(sentence.text)
    words = _word_set(sentence.text)
    hits = sum(
        1 for t in plan.terms
        if t in words or (len(t) > 4 and t[:-1] in text) or compact_key(t) in text
    )  # fmt: skip
    return hits / len(plan.terms) + 0.25 * _ROLE_WEIGHT.get(sentence.role, 0.1) + typed


def _leads(sentences: Sequence[EvidenceSentence]) -> list[EvidenceSentence]:
    """The first sentence of each neighbour document, in pack order (neighbour rank)."""
    first: dict[str, EvidenceSentence] = {}
    for sentence in sorted(sentences, key=lambda s: s.order):
        first.setdefault(sentence.document_id, sentence)
    return list(first.values())


def _mostly_cjk(text: str) -> bool:
    cjk = sum(1 for ch in text if "\u3000" <= ch <= "\u9fff")
    return cjk > 0.3 * len(text)


def _defines(sentence: EvidenceSentence, plan: QueryPlan) -> bool:
    """The sentence says what the question asks about is: its subject names most of the
    question's terms ("Samsung Pay is a way to pay ..."); not "If you are using the Samsung Pay
    app ..." (its subject is "you"), nor "A Samsung account is required"."""
    match = _DEFINING.match(sentence.text)
    if match is None:
        return False
    named = _word_set(match.group("subject")) & set(plan.terms)
    return 2 * len(named) > len(plan.terms)


def _word_set(text: str) -> set[str]:
    return set(tokens.words(text))


def _operand_words(plan: QueryPlan, index: int) -> set[str]:
    if index >= len(plan.operands):
        return set()
    words = [w for w in re.findall(r"\w+", plan.operands[index].lower()) if len(w) > 2]
    return set(words[-1:])  # the head noun: 'brittle glass vessel' -> vessel


def as_draft(chosen: Sequence[tuple[str, EvidenceSentence]]) -> list[DraftSentence]:
    drafted = []
    heading: tuple[str, ...] = ()
    label: list[EvidenceSentence] = []  # a bare "Step 3." the splitter cut off its step
    for slot, s in chosen:
        if slot == "procedure" and _BARE_STEP.match(s.text):
            label.append(s)
            continue
        text = sentence_end(s.text)
        evidence = (*label, s)
        if label:
            text = " ".join(e.text for e in label) + " " + text
            label = []
        # A procedure written one heading per step names the step in its heading: the step's
        # first sentence carries it ("Step 2: Remove the cover: Lift the tab ...").
        if slot == "procedure" and s.heading_path != heading:
            heading = s.heading_path
            title = s.heading_path[-1].rstrip(" :") if s.heading_path else ""
            if STEP_HEADING.match(title):
                text = f"{title}: {text}"
        drafted.append(DraftSentence(
            text=text, kind="evidence", evidence=evidence,
            fragment_ids=tuple(dict.fromkeys(e.fragment_id for e in evidence)),
            citation_ids=tuple(e.citation_id for e in evidence), slot=slot,
        ))  # fmt: skip
    return drafted


def _carry_headings(sentences: Sequence[DraftSentence], plan: QueryPlan) -> list[DraftSentence]:
    """A value of the asked type that the page states only in a heading ("## 3.11.0" over
    "Added CSV export") is the value of what is written under it: the first sentence quoted
    from under that heading carries it ("3.11.0: Added CSV export ...")."""
    kind = plan.answer_type
    if kind is None:
        return list(sentences)
    carried: list[DraftSentence] = []
    seen: set[tuple[str, ...]] = set()
    for sentence in sentences:
        path = sentence.evidence[-1].heading_path if sentence.evidence else ()
        title = path[-1].strip() if path else ""
        if (
            sentence.kind == "evidence" and title and path not in seen
            and not holds_instance(sentence.text, kind) and holds_instance(title, kind)
        ):  # fmt: skip
            sentence = msgspec.structs.replace(sentence, text=f"{title}: {sentence.text}")
        seen.add(path)
        carried.append(sentence)
    return carried


def conflict_lines(pack: RagContextPack, pool: Sequence[EvidenceSentence]) -> list[DraftSentence]:
    lines = []
    for fragment in pack.fragments:
        if fragment.role != "conflict":
            continue
        text = public_text(fragment.text) or " ".join(fragment.text.split())
        if not text or is_artifact(text):
            continue
        values = {v.casefold() for v in getattr(fragment, "conflict_values", ()) or ()}
        support = tuple(
            s for s in pool
            if s.document_id == fragment.document_id and s.role != "conflict"
            and any(v in s.quote.casefold() for v in values)
        ) if values else ()  # fmt: skip
        lines.append(
            DraftSentence(
                text=sentence_end(text),
                kind="conflict",
                evidence=support,
                fragment_ids=(fragment.id,),
                citation_ids=fragment.citation_ids,
                slot="conflict",
            )
        )
    return lines


def conflict_values_of(line: DraftSentence, pack: RagContextPack) -> tuple[str, ...]:
    by_id = {f.id: f for f in pack.fragments}
    return tuple(
        v
        for fid in line.fragment_ids
        for v in (getattr(by_id.get(fid), "conflict_values", ()) or ())
    )


def _one_sided(text: str, values: set[str]) -> bool:
    """States exactly one of several conflicting values: publishing it would pick a side."""
    if len(values) < 2:
        return False
    present = sum(1 for v in values if v in text.casefold())
    return present == 1


def sentence_end(text: str) -> str:
    text = text.strip()
    return text if text[-1:] in ".!?。！？;:)\"'।॥؟۔" else text + "."


def _bounded(sentences: Sequence[DraftSentence], settings: AnswerSettings) -> list[DraftSentence]:
    """At most `answer_sentences` (conflict lines and steps beyond count, so a procedure is not
    cut mid-way) and `answer_chars`."""
    kept: list[DraftSentence] = []
    chars = 0
    counted = 0
    for sentence in sentences:
        free = sentence.kind == "conflict" or sentence.slot in ("step", "procedure", MENU_SLOT)
        if not free and counted >= settings.answer_sentences:
            continue
        # A procedure is bounded by its step count (procedure_max_steps), not by characters.
        whole = sentence.slot in ("procedure", "procedure_rest")
        if kept and not whole and chars + len(sentence.text) > settings.answer_chars:
            continue
        kept.append(sentence)
        chars += len(sentence.text) + 1
        counted += 0 if free else 1
    return kept


def caveats(review: object, pack: RagContextPack, context: GraphContext) -> list[DraftSentence]:
    """What a degraded answer is missing, in plain words (no internal names)."""
    from service.answer.sufficiency import SufficiencyReview  # typing only; avoids a cycle

    assert isinstance(review, SufficiencyReview)
    lines: list[DraftSentence] = []
    lost = [d for d in pack.decisions if d.status == "source_window_unavailable"]
    if lost:
        titles = [
            n.title for n in (*context.predecessors, *context.successors)
            if not any(f.knowledge_point_id == n.id for f in pack.fragments)
        ]  # fmt: skip
        names = ", ".join(dict.fromkeys(titles)) or f"{len(lost)} related topics"
        lines.append(DraftSentence(
            text=f"The knowledge graph also links this to {names}, but no source text for "
            "them was available, so those relations are not described here.",
            kind="caveat", slot="graph_limitation",
            fragment_ids=tuple(d.fragment_id for d in lost),
        ))  # fmt: skip
    if review.stale:
        lines.append(DraftSentence(
            text="This may be out of date: " + "; ".join(
                _plain_stale(s) for s in review.stale) + ".",
            kind="caveat", slot="stale",
        ))  # fmt: skip
    if review.degradation == "partial_coverage" and review.missing_terms and not lost:
        lines.append(DraftSentence(
            text="The sources found do not cover "
            + ", ".join(f"'{t}'" for t in review.missing_terms[:4]) + ".",
            kind="caveat", slot="coverage",
        ))  # fmt: skip
    return lines


def _plain_stale(path: str) -> str:
    return f"{path.rsplit('/', 1)[-1]} is marked as expired or superseded"
