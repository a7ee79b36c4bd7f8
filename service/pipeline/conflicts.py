"""Contradictions between comparable facts of the complete selected documents.

Pure and deterministic. `scan_conflicts` extracts the facts of every passage (facts.py) and
reports a Conflict for each subject key and condition scope that holds two or more distinct
values: adjacent sentences, the same section, two documents, or an appendix far from the matched
span all count alike, because the whole documents are scanned. Facts whose qualifiers differ
(historical vs current, staging vs production, version 1.0 vs 2.0, Windows vs Android, "when
emergency mode is on" vs no condition) are in different scopes and never conflict; a state
named only inside a condition is no fact at all (facts.py).

Aligned facts (open prose) conflict only pairwise, across documents, and not when one value
holds the other (an insertion): they meet by the words right before or right after their value
(so a typo on one side of an edit does not hide it), and the two surroundings must agree on at
least `aligned_min_shared_tokens` words, including at least `aligned_min_shared_values` figures
or names, before the first difference. An edited copy of a statement passes; a shared template
about another entity ("the population was …") stops at the entity's own figures. Two documents
are compared this way only as one page edited (`_one_entity_edit`): they share at least
`min_same_entity_share` of their names and figures (namesakes' pages built from one template
share few), and not each of them names both values (a page naming both lists them).

Plain (lower-case) words are compared by `word_edits`: when one document is a near copy of
another (`word_edit_min_copy_share` of its words in common stretches), a word or two it replaces
between `word_edit_min_shared_tokens` equal words on each side ("the academy takes its name" /
"the university takes its name") is a conflict, unless the two are one spelling or the
sentences carry different condition scopes.

Facts on one subject whose values differ only across condition scopes are reported as
QualifiedFacts instead: evidence to keep with its qualifier (the current value answers, the
historical, planned or other-environment one stays as scoped provenance), never a conflict.

What a scan costs is kept to what can conflict: the facts come from the analyses stored at
ingest, and only those that can meet another value (an attribute subject stated with two
values, an aligned fact whose half-frame another document shares) are bound to their sentences;
a document's profile is made only when two of its statements are compared. With `focus` (the
documents retrieval matched directly), aligned statements and word edits are compared only in
pairs with a focus document, the only ones `select_conflicts` can keep.

`select_conflicts` keeps the findings relevant to the question: a side in a document the
retrieval matched directly (its knowledge point is what the question is about), or a subject
that shares a word with the question. Conflicts found only among graph-neighbour documents about
other subjects are left out, so neighbours cannot degrade an answer about something else. An
aligned conflict must also change the kind of value the question asks for (`answer_shapes`: a
year for "built", a figure for "population", a name for "director"): when a question about a
director meets "The Squeeze (1977)" against "The Squeeze (1987)", the edit is the year that
tells two films apart, not a disagreement about who directed one.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from difflib import SequenceMatcher
from typing import Literal, Protocol, TypeVar

import msgspec

from service.pipeline.facts import (
    DocumentProfile,
    DocumentWords,
    Fact,
    FactHead,
    FactKind,
    FactSettings,
    Passage,
    Scope,
    WordToken,
    bind_facts,
    document_profiles,
    document_vocabularies,
    document_words,
    edit_fact,
    fact_heads,
    frame_halves,
    is_anchor_token,
    month_words,
    norm_token,
)

_MONTH_WORDS = month_words()


def _words_of(text: str) -> tuple[str, ...]:
    return tuple(text.split())


__all__ = [
    "Conflict",
    "ConflictScan",
    "ConflictSettings",
    "QualifiedFacts",
    "conflict_text",
    "detect_conflicts",
    "scan_conflicts",
    "select_conflicts",
    "word_edits",
]


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


def scan_conflicts(
    passages: Iterable[Passage],
    settings: ConflictSettings | None = None,
    *,
    focus: Collection[str] | None = None,
) -> ConflictScan:
    """`focus`: the documents the question is about (those retrieval matched directly), if not
    all. Aligned statements and plain-word edits are then compared only where one side is in
    one of them, since `select_conflicts` keeps no aligned conflict without such a side: two
    graph neighbours' documents are not compared with each other (their attribute facts are,
    because a subject the question names is kept from any document)."""
    settings = settings or ConflictSettings()
    passages = list(passages)
    heads = fact_heads(passages, settings.facts)
    facts = bind_facts(passages, _contested(heads, focus), settings.facts)
    profiles = document_profiles(passages)
    conflicts = detect_conflicts(facts, settings, profiles, focus) + word_edits(
        passages, settings, len(heads), profiles, focus
    )
    conflicts.sort(key=lambda c: c.sides[0].order)
    return ConflictScan(conflicts=tuple(conflicts), qualified=tuple(qualified_facts(facts)))


def _contested(heads: Iterable[FactHead], focus: Collection[str] | None) -> list[FactHead]:
    """The facts that can take part in a conflict or a qualified pair: an attribute subject
    stated with two or more values, or an aligned fact sharing a half-frame and scope with a
    fact of another document, one of them in `focus` (`_aligned_groups` compares only those).
    Whole groups are kept, so detection over these gives exactly what it gives over all facts."""
    heads = list(heads)
    values: dict[str, set[str]] = {}
    documents: dict[tuple[str, str, Scope], set[str]] = {}
    for head in heads:
        if head.kind != "aligned":
            values.setdefault(head.key, set()).add(head.norm)
            continue
        for bucket in _buckets(head):
            documents.setdefault(bucket, set()).add(head.document_id)
    return [
        head for head in heads
        if (len(values[head.key]) > 1 if head.kind != "aligned"
            else any(_compared(documents[b], focus) for b in _buckets(head)))
    ]  # fmt: skip


def _compared(documents: Collection[str], focus: Collection[str] | None) -> bool:
    """Facts of these documents meet in a pair: two documents, one of them in focus."""
    return len(documents) > 1 and (focus is None or any(d in focus for d in documents))


def _in_focus(one: str, other: str, focus: Collection[str] | None) -> bool:
    return focus is None or one in focus or other in focus


def _buckets(head: FactHead) -> tuple[tuple[str, str, Scope], ...]:
    """The half-frame buckets of `_aligned_groups`: (side, the words on that side, scope)."""
    return ("before", head.before, head.scope), ("after", head.after, head.scope)


_FUNCTION_WORDS = frozenset(
    _words_of("the a an of in on at to for by with and or is was were are be been as it its his "
              "her their this that from has have had also which who not but")
)  # fmt: skip


def word_edits(
    passages: Sequence[Passage],
    settings: ConflictSettings,
    first_order: int = 0,
    profiles: Mapping[str, DocumentProfile] | None = None,
    focus: Collection[str] | None = None,
) -> list[Conflict]:
    """Plain words one document replaces in an otherwise equal stretch of another ("rugby
    league" / "cricket"), two documents at a time, when one is a near copy of the other. Both
    sides are lower-case words (names and figures are aligned facts), neither is a spelling
    variant of the other or holds it, and both sentences carry the same condition scope."""
    limit, share = settings.word_edit_max_document_tokens, settings.word_edit_min_copy_share
    vocabularies = document_vocabularies(passages, limit)
    need = settings.word_edit_min_shared_tokens
    found: list[Conflict] = []
    documents = sorted(vocabularies)
    tokens: dict[str, DocumentWords] = {}  # read only for pairs that pass the first bound
    counts: dict[str, Counter[str]] = {}
    for i, one in enumerate(documents):
        for other in documents[i + 1 :]:
            if not _in_focus(one, other, focus):
                continue
            # Upper bounds on the words the two have in common, before the costly diff. First:
            # the shorter one's tokens, less one for each distinct word the longer one lacks.
            shorter, longer = sorted((one, other), key=lambda d: vocabularies[d][1])
            short_words, short_count = vocabularies[shorter]
            if short_count - len(short_words - vocabularies[longer][0]) < share * short_count:
                continue
            # Then: the shorter one's tokens whose word the longer one has at all.
            tokens = tokens or document_words(passages, limit)
            for d in (shorter, longer):
                if d not in counts:
                    counts[d] = Counter(tokens[d].norms)
            common = counts[shorter].keys() & counts[longer].keys()
            if sum(map(counts[shorter].__getitem__, common)) < share * short_count:
                continue
            words_a, words_b = tokens[one].norms, tokens[other].norms
            ops = SequenceMatcher(None, words_a, words_b, autojunk=False).get_opcodes()
            same = sum(op[2] - op[1] for op in ops if op[0] == "equal")
            if same < share * min(len(words_a), len(words_b)):
                continue  # not one text edited: pages that share a template or some sentences
            for k in range(1, len(ops) - 1):
                op, a_lo, a_hi, b_lo, b_hi = ops[k]
                if (
                    op != "replace"
                    or max(a_hi - a_lo, b_hi - b_lo) > settings.word_edit_max_words
                    or ops[k - 1][2] - ops[k - 1][1] < need
                    or ops[k + 1][2] - ops[k + 1][1] < need
                ):
                    continue
                a = [tokens[one].token(passages, n) for n in range(a_lo, a_hi)]
                b = [tokens[other].token(passages, n) for n in range(b_lo, b_hi)]
                if not _plain_edit(a, b, settings):
                    continue
                order = first_order + len(found) * 2
                frame = settings.facts.aligned_context_tokens
                side_a = edit_fact(passages[a[0].passage], a[0], a[-1], order, context=frame)
                side_b = edit_fact(passages[b[0].passage], b[0], b[-1], order + 1, context=frame)
                if side_a.scope == side_b.scope and _one_entity_edit(
                    side_a, side_b, profiles, settings
                ):
                    found.append(
                        Conflict(kind="aligned", subject=side_a.subject, key=side_a.key,
                                 scope=side_a.scope, sides=(side_a, side_b))
                    )  # fmt: skip
    return found


def _plain_edit(a: Sequence[WordToken], b: Sequence[WordToken], settings: ConflictSettings) -> bool:
    if not all(t.raw[:1].isalpha() and t.raw[:1].islower() for t in [*a, *b]):
        return False  # names and figures are aligned facts; this is for plain words
    words_a, words_b = [t.norm for t in a], [t.norm for t in b]
    if all(w in _FUNCTION_WORDS for w in words_a + words_b):
        return False
    if set(words_a) <= set(words_b) or set(words_b) <= set(words_a):
        return False
    ratio = SequenceMatcher(None, " ".join(words_a), " ".join(words_b)).ratio()
    return ratio < settings.word_edit_max_similarity


def detect_conflicts(
    facts: Sequence[Fact],
    settings: ConflictSettings | None = None,
    profiles: Mapping[str, DocumentProfile] | None = None,
    focus: Collection[str] | None = None,
) -> list[Conflict]:
    """Conflicts in reading order of their first side. With the documents' `profiles`, aligned
    statements of two documents are compared only as an edit of one entity's page
    (`_one_entity_edit`); with `focus`, only when one of the two is in focus."""
    settings = settings or ConflictSettings()
    groups: dict[tuple[str, Scope], list[Fact]] = {}
    for fact in facts:
        if fact.kind != "aligned":
            groups.setdefault((fact.key, fact.scope), []).append(fact)
    conflicts: list[Conflict] = []
    for (key, scope), group in groups.items():
        if len({f.norm for f in group}) < 2:
            continue
        sides = _distinct(group)[: settings.max_values_per_conflict]
        if len(sides) >= 2:
            first = sides[0]
            conflicts.append(
                Conflict(kind=first.kind, subject=first.subject, key=key, scope=scope, sides=sides)
            )
    aligned = [f for f in facts if f.kind == "aligned"]
    for members in _aligned_groups(aligned, settings, profiles, focus):
        sides = _distinct(members)[: settings.max_values_per_conflict]
        if len(sides) >= 2:
            first = sides[0]
            conflicts.append(
                Conflict(kind="aligned", subject=first.subject, key=first.key, scope=first.scope,
                         sides=sides)
            )  # fmt: skip
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


def _aligned_groups(
    aligned: Sequence[Fact],
    settings: ConflictSettings,
    profiles: Mapping[str, DocumentProfile] | None = None,
    focus: Collection[str] | None = None,
) -> list[list[Fact]]:
    """Aligned facts that contradict each other, grouped (pairs joined when they share a fact).

    Candidates meet in a bucket by the words right before the value or by the words right
    after it, so a typo or a reworded word on one side of an edit ("the present chuch") does
    not hide it; each bucket is cut at `aligned_max_bucket` facts."""
    buckets: dict[tuple[str, str, Scope], list[Fact]] = {}
    for fact in aligned:
        for side, words in zip(("before", "after"), frame_halves(fact.key), strict=True):
            buckets.setdefault((side, words, fact.scope), []).append(fact)
    parent: dict[int, int] = {}

    def root(order: int) -> int:
        while parent.setdefault(order, order) != order:
            order = parent[order]
        return order

    members: dict[int, Fact] = {}
    for bucket in buckets.values():
        bucket = bucket[: settings.aligned_max_bucket]
        for i, a in enumerate(bucket):
            for b in bucket[i + 1 :]:
                if (
                    root(a.order) != root(b.order)
                    and _in_focus(a.document_id, b.document_id, focus)
                    and _contradicts(a, b, settings)
                    and _one_entity_edit(a, b, profiles, settings)
                ):
                    members[a.order], members[b.order] = a, b
                    parent[root(a.order)] = root(b.order)
    groups: dict[int, list[Fact]] = {}
    for order, fact in sorted(members.items()):
        groups.setdefault(root(order), []).append(fact)
    return list(groups.values())


def _contradicts(a: Fact, b: Fact, settings: ConflictSettings) -> bool:
    """Two aligned facts state different values in one long shared surrounding. Only across
    documents (a list repeats one frame by design); one value inside the other ("Croatia" vs
    "Croatia NDH") is an insertion, not a contradiction."""
    if a.document_id == b.document_id:
        return False
    own_a, own_b = differing_tokens(a, b)
    if not own_a or not own_b:
        return False  # one value holds the other with more words: an insertion
    if len(own_a) == len(own_b) == 1 and _same_figure(own_a[0], own_b[0]):
        return False
    if _spelled(own_a) == _spelled(own_b):
        return False  # one name written two ways: "Wi-Fi" and "WiFi", "Jay Z" and "Jay-Z"
    words_a, words_b = set(a.norm.split()), set(b.norm.split())
    if words_a <= words_b or words_b <= words_a:
        return False
    window = settings.facts.aligned_context_tokens
    if _follows(a, b, window) or _follows(b, a, window):
        return False
    shared, anchors = _shared_context(a, b)
    return (
        shared >= settings.aligned_min_shared_tokens
        and anchors >= settings.aligned_min_shared_values
    )


def _follows(a: Fact, b: Fact, window: int) -> bool:
    """a's value comes again within `window` words after b's value: b inserted words before
    an unchanged statement ("Early life and education Hill was born" against "Hill was born"),
    it did not replace a's value."""
    run = list(a.tokens.norms[a.token_start : a.token_end])
    after = list(b.tokens.norms[b.token_end : b.token_end + window + len(run)])
    return any(after[i : i + len(run)] == run for i in range(len(after) - len(run) + 1))


def _one_entity_edit(
    a: Fact, b: Fact, profiles: Mapping[str, DocumentProfile] | None, settings: ConflictSettings
) -> bool:
    """Two documents' differing statements read as one page edited, not two pages: the pages
    share at least `min_same_entity_share` of their names and figures (else they are about
    different entities that share a template), and not each page mentions both values (a
    page naming both, "Cleonymus ... Acrotatus", lists them; an edit replaces one)."""
    if profiles is None or a.document_id == b.document_id:
        return True
    one, other = profiles.get(a.document_id), profiles.get(b.document_id)
    if one is None or other is None:
        return True
    if one.same_entity_share(other) < settings.min_same_entity_share:
        return False
    own_a, own_b = differing_tokens(a, b)
    a_in_b = all(norm_token(t) in other.words for t in own_a)
    b_in_a = all(norm_token(t) in one.words for t in own_b)
    return not (a_in_b and b_in_a)


def _spelled(tokens: Sequence[str]) -> str:
    """The letters and digits of a run, case folded: what stays of a name without its
    hyphens, spaces and apostrophes."""
    return "".join(ch for ch in "".join(tokens).casefold() if ch.isalnum())


def _same_figure(a: str, b: str) -> bool:
    """One figure at two precisions ("93.9" and "94"): rounding, not a disagreement."""
    one, other = norm_token(a), norm_token(b)
    if not (one[:1].isdigit() and other[:1].isdigit()):
        return False
    try:
        x, y = float(one), float(other)
    except ValueError:
        return False  # "1.2.3" and the like
    places = min(len(t.partition(".")[2]) for t in (one, other))
    return abs(x - y) <= 0.5 * 0.1**places


def differing_tokens(a: Fact, b: Fact) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The two value runs without the tokens they start or end alike with (as written): what
    the edit changed. "Train (2013" against "Train (2016" changed a year, not a name."""
    run_a = a.tokens.norms[a.token_start : a.token_end]
    run_b = b.tokens.norms[b.token_start : b.token_end]
    shorter = min(len(run_a), len(run_b))
    lo = 0
    while lo < shorter and run_a[lo] == run_b[lo]:
        lo += 1
    hi = 0
    while hi < shorter - lo and run_a[-1 - hi] == run_b[-1 - hi]:
        hi += 1
    return (a.tokens[a.token_start + lo : a.token_end - hi],
            b.tokens[b.token_start + lo : b.token_end - hi])  # fmt: skip


def _shared_context(a: Fact, b: Fact) -> tuple[int, int]:
    """How many tokens the two statements share right before and right after their values,
    and how many of those are figures or names."""
    norms_a, norms_b = a.tokens.norms, b.tokens.norms
    shared: list[int] = []  # indexes into a's tokens
    step = 1
    while (
        a.token_start - step >= 0
        and b.token_start - step >= 0
        and norms_a[a.token_start - step] == norms_b[b.token_start - step]
    ):
        shared.append(a.token_start - step)
        step += 1
    step = 0
    while (
        a.token_end + step < len(norms_a)
        and b.token_end + step < len(norms_b)
        and norms_a[a.token_end + step] == norms_b[b.token_end + step]
    ):
        shared.append(a.token_end + step)
        step += 1
    return len(shared), sum(1 for index in shared if is_anchor_token(a.tokens[index]))


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
        _words_of("population inhabitants residents length height width depth area elevation "
                  "altitude income salary age median size count number capacity attendance "
                  "votes distance weight"),
        frozenset({"figure"}),
    ),
    **dict.fromkeys(
        _words_of("year date established founded built released introduced incorporated formed "
                  "opened completed launched published raised started began created"),
        frozenset({"year"}),
    ),
    **dict.fromkeys(
        _words_of("born died die death"), frozenset({"year", "name"})
    ),
    **dict.fromkeys(
        _words_of("artist director directors directed author writer composer creator architect "
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


# --- the conflict's sentence ------------------------------------------------------------------


def conflict_text(conflict: Conflict, quote_chars: int = 160) -> str:
    """One plain sentence naming every value with its source, never picking one."""
    parts = [
        f'{side.path} (line {side.line}) gives {side.value} ("{_quote(side, quote_chars)}")'
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
