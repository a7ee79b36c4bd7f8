"""What a conflict scan is bounded by and what it reports."""

from __future__ import annotations

import msgspec

from service.settings import ConflictSettings
from service.text.facts import (
    Fact,
    FactKind,
    Scope,
    month_words,
)

__all__ = ["Conflict", "ConflictScan", "ConflictSettings", "QualifiedFacts"]

_MONTH_WORDS = month_words()


class Conflict(msgspec.Struct, frozen=True, kw_only=True):
    kind: FactKind
    subject: str
    key: str
    scope: Scope
    sides: tuple[Fact, ...]  # one fact per distinct value, in reading order

    @property
    def values(self) -> tuple[str, ...]:
        return tuple(side.value for side in self.sides)


class QualifiedFacts(msgspec.Struct, frozen=True, kw_only=True):
    """One subject's differing values that qualifiers keep apart (no conflict)."""

    kind: FactKind
    subject: str
    key: str
    sides: tuple[Fact, ...]  # one fact per (scope, value), in reading order


class ConflictScan(msgspec.Struct, frozen=True, kw_only=True):
    conflicts: tuple[Conflict, ...]
    qualified: tuple[QualifiedFacts, ...]
