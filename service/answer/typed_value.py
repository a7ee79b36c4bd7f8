"""check_typed_value: does the answer hold a value of the type its question asks for?

"How long is the warranty?" is answered by a sentence with a duration in it, not by the page's
paragraph about the kettle's capacity. The check runs on the released draft: an answer whose
quoted sentences hold no value of the asked type is `partial`, naming the value it lacks, or,
when the best evidence was already uncertain to answer the question at all, an abstention
(docs/evidence.md, "Answer types").
"""

from __future__ import annotations

from typing import Literal

import msgspec

from service.answer.composer import Draft, DraftSentence
from service.answer.sufficiency.terms import has_term, stems
from service.pipeline.plan import QueryPlan
from service.text.answer_types import holds_instance, names_attribute, unit_word
from service.text.language import function_word

__all__ = ["TypedValue", "check_typed_value", "missing_value_caveat"]

Outcome = Literal["untyped", "present", "missing"]


class TypedValue(msgspec.Struct, frozen=True, kw_only=True):
    expected: str | None  # the asked type's name, None for an untyped question
    noun: str  # what the answer names when the value is missing
    outcome: Outcome
    sentences: tuple[int, ...] = ()  # answer sentences holding a value of the type


def check_typed_value(plan: QueryPlan, draft: Draft) -> TypedValue:
    kind = plan.answer_type
    if kind is None:
        return TypedValue(expected=None, noun="", outcome="untyped")
    sentences = draft.sentences
    holding = tuple(
        i for i, s in enumerate(sentences)
        if s.kind in ("evidence", "conflict", "generated") and holds_instance(s.text, kind)
        and (_about(s, plan) or (i > 0 and _same_paragraph(sentences[i - 1], s)
                                 and _about(sentences[i - 1], plan)))
    )  # fmt: skip
    return TypedValue(expected=kind.name, noun=kind.noun,
                      outcome="present" if holding else "missing", sentences=holding)  # fmt: skip


def _about(sentence: DraftSentence, plan: QueryPlan) -> bool:
    """The sentence names at least half of what the question asks about beyond its page's
    subject: "six months" in "new engineers have a probation period of six months" is no
    answer to how long the security training takes. A unit the question names ("in
    kilograms") is the asked type, which holds_instance checks, not a subject; with nothing
    else asked, the sentence must name the asked attribute ("weighs" for "how heavy"). The
    sentence before it in its paragraph may name it instead (check_typed_value)."""
    title = next((e.heading_path[0] for e in sentence.evidence if e.heading_path), "")
    in_title = stems(title)
    asked = [
        t for t in plan.terms
        if not function_word(t) and not unit_word(t) and not has_term(title, t, in_title)
    ]  # fmt: skip
    if not asked:  # only the page's subject and the type: the attribute must be the asked one
        return plan.answer_type is None or names_attribute(sentence.text, plan.answer_type)
    words = stems(sentence.text)
    return 2 * sum(1 for t in asked if has_term(sentence.text, t, words)) >= len(asked)


def _same_paragraph(a: DraftSentence, b: DraftSentence) -> bool:
    """b continues a's paragraph ("The X200 has a two-year warranty. It covers ..."): its
    value may be about what a names."""
    return bool({e.paragraph_id for e in a.evidence} & {e.paragraph_id for e in b.evidence})


def missing_value_caveat(typed: TypedValue) -> DraftSentence:
    return DraftSentence(
        text=f"The sources found do not state the {typed.noun} asked for.",
        kind="caveat",
        slot="missing_value",
    )
