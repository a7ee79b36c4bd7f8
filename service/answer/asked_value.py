"""with_asked_value: a typed question's answer quotes the asked-for value when its evidence has it.

The composer picks sentences by how many of the question's words they repeat, so "Who looks
after requests for books from other library networks?" is answered with "Books we do not own
can be requested from other library networks through the interlibrary loan service." and not
with the next sentence of that paragraph, "This service is run by Marta Kowalczyk ...", which
names the person asked for. When the composed answer holds no value of the asked type about
the question's subject (check_typed_value), the best sentence of the evidence that does is
quoted too: right after the sentence it continues, or beside its page's other sentences. The
same check decides, and the sentence must stand for the subject itself (stands_for_subject): one
sought out for its value is held to more than one the composer chose (docs/evidence.md, "Answer
types").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from service.answer.composer import Draft, DraftSentence, as_draft, evidence_score
from service.answer.sentences import EvidenceSentence
from service.answer.typed_value import check_typed_value, stands_for_subject
from service.pipeline.plan import QueryPlan
from service.text.answer_types import holds_instance

__all__ = ["sought", "with_asked_value"]

_CANDIDATES = 8  # sentences of the evidence holding a value of the type, tried best first
_SLOT = "value"  # the draft slot of a sentence quoted for its value


def with_asked_value(
    plan: QueryPlan,
    draft: Draft,
    pool: Sequence[EvidenceSentence],
    pages: Mapping[str, str] | None = None,
) -> Draft:
    """`draft` with the best evidence sentence that holds the asked value about the question's
    subject added, when it holds none; unchanged for an untyped question or when no sentence of
    `pool` would settle it. `pages`: as for check_typed_value."""
    kind = plan.answer_type
    # Nearly every sentence holds a yes or a no ("is", "can"): no sentence adds one.
    if kind is None or kind.name == "yes_no" or not draft.sentences:
        return draft
    if check_typed_value(plan, draft, pages).outcome != "missing":
        return draft
    # The page the answer stands on: a value from another page of the same manual is as
    # likely a sibling's ("register the kettle on the Aurel website" for where it is made).
    home = next((s.document_id for s in pool if s.role == "direct_support"), None)
    quoted = {(e.paragraph_id, e.start) for s in draft.sentences for e in s.evidence}
    holding = [
        s for s in pool
        if s.text and s.document_id == home and s.role != "conflict"
        and (s.paragraph_id, s.start) not in quoted and holds_instance(s.text, kind)
    ]  # fmt: skip
    holding.sort(key=lambda s: (-evidence_score(s, plan), s.order))
    for candidate in holding[:_CANDIDATES]:
        value = as_draft([(_SLOT, candidate)])[0]
        sentences = _placed(draft.sentences, value, candidate)
        trial = Draft(profile=draft.profile, sentences=sentences)
        if stands_for_subject(plan, trial, sentences.index(value)) and (
            check_typed_value(plan, trial, pages).outcome == "present"
        ):
            return trial
    return draft


def _placed(
    sentences: tuple[DraftSentence, ...], value: DraftSentence, source: EvidenceSentence
) -> tuple[DraftSentence, ...]:
    """`value` after the last quoted sentence of its paragraph that comes before it in the page
    (the sentence it continues), else after its page's last quoted sentence, else last."""

    def at(where: int) -> tuple[DraftSentence, ...]:
        return (*sentences[: where + 1], value, *sentences[where + 1 :])

    same_page = [
        i for i, s in enumerate(sentences)
        if any(e.document_id == source.document_id for e in s.evidence)
    ]  # fmt: skip
    before = [
        i for i in same_page
        if any(e.paragraph_id == source.paragraph_id and e.start < source.start
               for e in sentences[i].evidence)
    ]  # fmt: skip
    if before:
        return at(before[-1])
    if same_page:
        return at(same_page[-1])
    return (*sentences, value)


def sought(draft: Draft) -> list[int]:
    """The draft's sentences quoted for their value here, not chosen by the composer (trace)."""
    return [i for i, s in enumerate(draft.sentences) if s.slot == _SLOT]
