"""Contradictions between comparable facts of the complete selected documents.

Pure and deterministic. `scan_conflicts` extracts the facts of every passage (facts.py) and
reports a Conflict for each subject key and condition scope that holds two or more distinct
values: adjacent sentences, the same section, two documents, or an appendix far from the matched
span all count alike, because the whole documents are scanned. Facts whose qualifiers differ
(historical vs current, staging vs production, version 1.0 vs 2.0, Windows vs Android) are in
different scopes and never conflict.

Aligned facts (open prose) conflict only pairwise, across documents, and not when one value
holds the other (an insertion): their frames must match and the two
surroundings must agree on at least `aligned_min_shared_tokens` words, including at least
`aligned_min_shared_values` figures or names, before the first difference. An edited copy of a
statement passes; a shared template about another entity ("the population was …") stops at the
entity's own figures.

Facts on one subject whose values differ only across condition scopes are reported as
QualifiedFacts instead: evidence to keep with its qualifier (the current value answers, the
historical, planned or other-environment one stays as scoped provenance), never a conflict.

`select_conflicts` keeps the findings relevant to the question: a side in a document the
retrieval matched directly (its knowledge point is what the question is about), or a subject
that shares a word with the question. Conflicts found only among graph-neighbour documents about
other subjects are left out, so neighbours cannot degrade an answer about something else.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from typing import Protocol, TypeVar

import msgspec

from service.pipeline.facts import (
    Fact,
    FactKind,
    FactSettings,
    Passage,
    Scope,
    extract_facts,
    is_anchor_token,
    norm_token,
)

__all__ = [
    "Conflict",
    "ConflictScan",
    "ConflictSettings",
    "QualifiedFacts",
    "conflict_text",
    "detect_conflicts",
    "scan_conflicts",
    "select_conflicts",
]


class ConflictSettings(msgspec.Struct, frozen=True, kw_only=True):
    facts: FactSettings = FactSettings()
    max_conflicts: int = 3  # conflict fragments per question
    max_qualified_subjects: int = 2  # subjects whose condition-scoped facts become evidence
    max_values_per_conflict: int = 4  # distinct values named in one conflict
    quote_chars: int = 160  # longest quote of a source sentence in a conflict's text
    aligned_min_shared_tokens: int = 8  # words two aligned statements share around the value
    aligned_min_shared_values: int = 1  # figures or names among those shared words
    aligned_max_bucket: int = 40  # aligned facts per frame compared pairwise


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


def scan_conflicts(
    passages: Iterable[Passage], settings: ConflictSettings | None = None
) -> ConflictScan:
    settings = settings or ConflictSettings()
    facts = extract_facts(passages, settings.facts)
    return ConflictScan(
        conflicts=tuple(detect_conflicts(facts, settings)),
        qualified=tuple(qualified_facts(facts)),
    )


def detect_conflicts(
    facts: Sequence[Fact], settings: ConflictSettings | None = None
) -> list[Conflict]:
    """Conflicts in reading order of their first side."""
    settings = settings or ConflictSettings()
    groups: dict[tuple[str, Scope], list[Fact]] = {}
    for fact in facts:
        groups.setdefault((fact.key, fact.scope), []).append(fact)
    conflicts: list[Conflict] = []
    for (key, scope), group in groups.items():
        if len({f.norm for f in group}) < 2:
            continue
        members = group if group[0].kind != "aligned" else _aligned_members(group, settings)
        sides = _distinct(members)[: settings.max_values_per_conflict]
        if len(sides) >= 2:
            first = sides[0]
            conflicts.append(
                Conflict(kind=first.kind, subject=first.subject, key=key, scope=scope, sides=sides)
            )
    conflicts.sort(key=lambda c: c.sides[0].order)
    return conflicts


def qualified_facts(facts: Sequence[Fact]) -> list[QualifiedFacts]:
    """Attribute subjects stated with different values under different condition scopes."""
    groups: dict[str, list[Fact]] = {}
    for fact in facts:
        if fact.kind != "aligned":
            groups.setdefault(fact.key, []).append(fact)
    found: list[QualifiedFacts] = []
    for key, group in groups.items():
        if len({f.scope for f in group}) < 2 or len({f.norm for f in group}) < 2:
            continue
        sides: dict[tuple[Scope, str], Fact] = {}
        for fact in group:
            sides.setdefault((fact.scope, fact.norm), fact)
        first = group[0]
        found.append(
            QualifiedFacts(kind=first.kind, subject=first.subject, key=key,
                           sides=tuple(sides.values()))
        )  # fmt: skip
    found.sort(key=lambda q: q.sides[0].order)
    return found


def _distinct(facts: Iterable[Fact]) -> tuple[Fact, ...]:
    seen: dict[str, Fact] = {}
    for fact in sorted(facts, key=lambda f: f.order):
        seen.setdefault(fact.norm, fact)
    return tuple(seen.values())


def _aligned_members(group: Sequence[Fact], settings: ConflictSettings) -> list[Fact]:
    """The facts of one frame that differ from another fact of it with a long enough shared
    surrounding (pairwise; a bucket is cut at `aligned_max_bucket` facts)."""
    bucket = list(group[: settings.aligned_max_bucket])
    members: dict[int, Fact] = {}
    for i, a in enumerate(bucket):
        for b in bucket[i + 1 :]:
            # Another document only (a list repeats one frame by design); one value inside the
            # other ("Croatia" vs "Croatia NDH") is an insertion, not a contradiction.
            words_a, words_b = set(a.norm.split()), set(b.norm.split())
            if a.document_id == b.document_id or words_a <= words_b or words_b <= words_a:
                continue
            shared, anchors = _shared_context(a, b)
            if (
                shared >= settings.aligned_min_shared_tokens
                and anchors >= settings.aligned_min_shared_values
            ):
                members[a.order] = a
                members[b.order] = b
    return list(members.values())


def _shared_context(a: Fact, b: Fact) -> tuple[int, int]:
    """How many tokens the two statements share right before and right after their values,
    and how many of those are figures or names."""
    shared: list[str] = []
    step = 1
    while (
        a.token_start - step >= 0
        and b.token_start - step >= 0
        and norm_token(a.tokens[a.token_start - step]) == norm_token(b.tokens[b.token_start - step])
    ):
        shared.append(a.tokens[a.token_start - step])
        step += 1
    step = 0
    while (
        a.token_end + step < len(a.tokens)
        and b.token_end + step < len(b.tokens)
        and norm_token(a.tokens[a.token_end + step]) == norm_token(b.tokens[b.token_end + step])
    ):
        shared.append(a.tokens[a.token_end + step])
        step += 1
    return len(shared), sum(1 for token in shared if is_anchor_token(token))


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
    for finding in findings:
        overlap = _overlap(finding.subject, wanted) if finding.kind != "aligned" else 0
        direct = any(side.document_id in direct_documents for side in finding.sides)
        if overlap or direct:
            ranked.append((-overlap, 0 if direct else 1, finding.sides[0].order, finding))
    ranked.sort(key=lambda row: row[:3])
    return [row[3] for row in ranked[:limit]]


def _overlap(subject: str, terms: Sequence[str]) -> int:
    words = subject.lower().split()
    # A shared stem of five letters is the same word ("statuses"/"status", "owner"/"ownership").
    return sum(1 for t in terms if any(w == t or (w[:5] == t[:5] and len(t) >= 5) for w in words))


# --- the conflict's sentence ------------------------------------------------------------------


def conflict_text(conflict: Conflict, quote_chars: int = 160) -> str:
    """One plain sentence naming every value with its source, never picking one."""
    parts = [
        f"{side.path} (line {side.line}) gives {side.value} (\"{_quote(side, quote_chars)}\")"
        for side in conflict.sides
    ]
    listed = ", ".join(parts[:-1]) + f", while {parts[-1]}"
    return f"The sources disagree on {_label(conflict)}: {listed}."


def _label(conflict: Conflict) -> str:
    if conflict.kind == "aligned":
        before, _, after = conflict.subject.partition(" … ")
        label = f'the statement "… {before} … {after} …"'
    else:
        label = f"the {conflict.subject}"
    conditions = [v if dim != "version" else f"version {v}" for dim, v in conflict.scope]
    return label + (f" ({', '.join(conditions)})" if conditions else "")


def _quote(side: Fact, limit: int) -> str:
    """The source sentence, or a window of it around the value when it is long."""
    sentence = " ".join(side.sentence.split())
    if len(sentence) <= limit:
        return sentence
    value_at = max(0, side.value_start - side.sentence_start)
    flat_at = len(" ".join(side.sentence[:value_at].split()))
    start = max(0, flat_at - limit // 2)
    end = min(len(sentence), start + limit)
    start = max(0, end - limit)
    if start > 0:
        space = sentence.find(" ", start)
        start = space + 1 if 0 <= space < flat_at else start
    if end < len(sentence):
        space = sentence.rfind(" ", flat_at, end)
        end = space if space > flat_at else end
    head = "…" if start > 0 else ""
    tail = "…" if end < len(sentence) else ""
    return head + sentence[start:end].strip() + tail
