"""What a conflict scan is bounded by and what it reports."""

from __future__ import annotations

import msgspec

from service.text.facts import (
    Fact,
    FactKind,
    FactSettings,
    Scope,
    month_words,
)

__all__ = ["Conflict", "ConflictScan", "ConflictSettings", "QualifiedFacts"]

_MONTH_WORDS = month_words()


class ConflictSettings(msgspec.Struct, frozen=True, kw_only=True):
    facts: FactSettings = FactSettings()
    max_conflicts: int = 3  # conflict fragments per question
    max_qualified_subjects: int = 2  # subjects whose condition-scoped facts become evidence
    max_values_per_conflict: int = 4  # distinct values named in one conflict
    quote_chars: int = 160  # longest quote of a source sentence in a conflict's text
    aligned_min_shared_tokens: int = 10  # words two aligned statements share around the value
    aligned_min_shared_values: int = 1  # figures or names among those shared words
    aligned_max_bucket: int = 40  # aligned facts per half-frame compared pairwise
    # Edits of plain words ("the academy takes its name" / "the university takes its name"),
    # found by comparing two documents word by word: equal words needed on each side, the
    # longest replaced run, the words read per document (bounds the comparison), and the
    # string similarity above which two words are one spelling, not an edit.
    word_edit_min_shared_tokens: int = 6
    word_edit_max_words: int = 2
    word_edit_max_document_tokens: int = 3000
    word_edit_max_similarity: float = 0.75
    # Share of the shorter document's words inside stretches the two documents have in common:
    # only a near copy of one text can replace a plain word (templated pages about different
    # things, "the offline map" / "the invoice export", stay apart).
    word_edit_min_copy_share: float = 0.8
    # Share of the smaller document's distinct names and figures the other one also has, below
    # which two pages are about different entities (one template, two towns or two films of
    # one name) and their statements are not compared: an edited copy keeps nearly all of them.
    min_same_entity_share: float = 0.3


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
