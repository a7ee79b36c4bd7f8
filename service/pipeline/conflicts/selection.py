"""Which conflicts a question's answer shows: those about what was asked, ranked."""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from typing import Literal, Protocol, TypeVar

from service.pipeline.conflicts.model import _MONTH_WORDS
from service.pipeline.conflicts.scan import differing_tokens
from service.text.facts import (
    Fact,
    FactKind,
)
from service.text.tokens import split_words

__all__ = ["answer_shapes", "select_conflicts"]


class _Finding(Protocol):
    @property
    def kind(self) -> FactKind: ...
    @property
    def subject(self) -> str: ...
    @property
    def sides(self) -> tuple[Fact, ...]: ...


FindingT = TypeVar("FindingT", bound=_Finding)


def select_conflicts(
    findings: Sequence[FindingT],
    *,
    terms: Collection[str],
    direct_documents: Collection[str],
    limit: int,
) -> list[FindingT]:
    """The conflicts (or qualified facts) worth showing for a question, most relevant first,
    at most `limit`."""
    wanted = [t.lower() for t in terms]
    ranked: list[tuple[int, int, int, FindingT]] = []
    shapes = answer_shapes(wanted)
    for finding in findings:
        if finding.kind == "aligned" and not _asked_shape(finding.sides, shapes):
            continue  # the edit changed another kind of value: a detail naming another entity
        overlap = _overlap(finding.subject, wanted) if finding.kind != "aligned" else 0
        direct = any(side.document_id in direct_documents for side in finding.sides)
        if overlap or direct:
            ranked.append((-overlap, 0 if direct else 1, finding.sides[0].order, finding))
    ranked.sort(key=lambda row: row[:3])
    return [row[3] for row in ranked[:limit]]


ValueShape = Literal["year", "figure", "name", "word"]
_ALL_SHAPES: frozenset[ValueShape] = frozenset({"year", "figure", "name", "word"})
# Question words that name the kind of value asked for (English question phrasing, not any
# data set's labels). A word may allow more than one shape ("born": when or where).
_ASKS_FOR: dict[str, frozenset[ValueShape]] = {
    **dict.fromkeys(
        split_words("population inhabitants residents length height width depth area elevation "
                  "altitude income salary age median size count number capacity attendance "
                  "votes distance weight"),
        frozenset({"figure"}),
    ),
    **dict.fromkeys(
        split_words("year date established founded built released introduced incorporated formed "
                  "opened completed launched published raised started began created"),
        frozenset({"year"}),
    ),
    **dict.fromkeys(
        split_words("born died die death"), frozenset({"year", "name"})
    ),
    **dict.fromkeys(
        split_words("artist director directors directed author writer composer creator architect "
                  "founder father mother husband wife son daughter spouse singer band producer "
                  "city country state region county province capital located party team "
                  "winner won"),
        frozenset({"name"}),
    ),
}  # fmt: skip
_YEAR = re.compile(r"(?:1[0-9]|20)\d\d")
_DAY = re.compile(r"(?:[1-9]|[12]\d|3[01])(?:st|nd|rd|th)?")


def answer_shapes(terms: Collection[str]) -> frozenset[ValueShape]:
    """The value shapes the question's words ask for; every shape when none says."""
    asked = [_ASKS_FOR[t] for t in terms if t in _ASKS_FOR]
    return frozenset().union(*asked) if asked else _ALL_SHAPES


def token_shape(token: str) -> ValueShape:
    """A year or month (dates), another figure, a name, or a plain (lower-case) word."""
    if token.lower() in _MONTH_WORDS or _YEAR.fullmatch(token):
        return "year"
    if token.lstrip("$€£")[:1].isdigit():
        return "figure"
    return "word" if token[:1].islower() else "name"


def run_shape(tokens: Sequence[str]) -> ValueShape:
    """The shape of a changed run: a date when it is years or months with day numbers ("24
    February 1919" against "12 March 1920" changed a date, not a count), else the shape of
    its first token ("17,153 3.5 % 2020" is a figure)."""
    shapes = [token_shape(t) for t in tokens]
    dated = zip(shapes, tokens, strict=True)
    if "year" in shapes and all(s == "year" or _DAY.fullmatch(t) for s, t in dated):
        return "year"
    return shapes[0]


def _asked_shape(sides: Sequence[Fact], shapes: frozenset[ValueShape]) -> bool:
    """Every side differs from the first one by a value of a shape the question asks for."""
    first = sides[0]
    for side in sides[1:]:
        own_first, own_side = differing_tokens(first, side)
        for own in (own_first, own_side):
            if own and run_shape(own) not in shapes:
                return False
    return True


def _overlap(subject: str, terms: Sequence[str]) -> int:
    words = subject.lower().split()
    # A shared stem of five letters is the same word ("statuses"/"status", "owner"/"ownership").
    return sum(1 for t in terms if any(w == t or (w[:5] == t[:5] and len(t) >= 5) for w in words))
