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
from service.pipeline.plan import QueryPlan
from service.text.answer_types import holds_instance

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
    holding = tuple(
        i for i, s in enumerate(draft.sentences)
        if s.kind in ("evidence", "conflict", "generated") and holds_instance(s.text, kind)
    )  # fmt: skip
    return TypedValue(expected=kind.name, noun=kind.noun,
                      outcome="present" if holding else "missing", sentences=holding)  # fmt: skip


def missing_value_caveat(typed: TypedValue) -> DraftSentence:
    return DraftSentence(
        text=f"The sources found do not state the {typed.noun} asked for.",
        kind="caveat",
        slot="missing_value",
    )
