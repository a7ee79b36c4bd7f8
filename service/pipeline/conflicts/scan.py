"""The scan: comparable facts of the selected documents grouped by subject key and condition
scope, and the pairs among them that state different things."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from difflib import SequenceMatcher

from service.pipeline.conflicts.model import (
    Conflict,
    ConflictScan,
    ConflictSettings,
    QualifiedFacts,
)
from service.text.facts import (
    DocumentProfile,
    DocumentProfiles,
    DocumentWords,
    Fact,
    FactHead,
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
    in_context,
    is_anchor_token,
    norm_token,
)
from service.text.tokens import split_words

__all__ = [
    "detect_conflicts",
    "qualified_facts",
    "scan_conflicts",
    "word_edits",
]


def scan_conflicts(
    passages: Iterable[Passage],
    settings: ConflictSettings | None = None,
    *,
    focus: Collection[str] | None = None,
    profiles: Mapping[str, DocumentProfile] | None = None,
) -> ConflictScan:
    """`focus`: the documents the question is about (those retrieval matched directly), if not
    all. Aligned statements and plain-word edits are then compared only where one side is in
    one of them, since `select_conflicts` keeps no aligned conflict without such a side: two
    graph neighbours' documents are not compared with each other (their attribute facts are,
    because a subject the question names is kept from any document). `profiles`: documents'
    stored profiles (read with their Fact nodes), each over exactly its passages here."""
    settings = settings or ConflictSettings()
    passages = list(passages)
    heads = fact_heads(passages, settings.facts)
    facts = in_context(bind_facts(passages, _contested(heads, focus), settings.facts), passages)
    documents = document_profiles(passages, profiles)
    conflicts = detect_conflicts(facts, settings, documents, focus) + word_edits(
        passages, settings, len(heads), documents, focus
    )
    conflicts.sort(key=lambda c: c.sides[0].order)
    return ConflictScan(conflicts=tuple(conflicts), qualified=tuple(qualified_facts(facts)))


def _contested(heads: Iterable[FactHead], focus: Collection[str] | None) -> list[FactHead]:
    """The facts that can take part in a conflict or a qualified pair: an attribute subject
    stated with two or more values, or an aligned fact sharing a half-frame and scope with a
    fact of another document that has a different value, one of the two documents in `focus`
    (`_aligned_groups` compares only those).
    Whole groups are kept, so detection over these gives exactly what it gives over all facts."""
    heads = list(heads)
    values: dict[str, set[str]] = {}
    members: dict[tuple[str, str, Scope], dict[str, set[str]]] = {}  # document -> values
    for head in heads:
        if head.kind != "aligned":
            values.setdefault(head.key, set()).add(head.norm)
            continue
        for bucket in _buckets(head):
            members.setdefault(bucket, {}).setdefault(head.document_id, set()).add(head.norm)
    # Most aligned heads share their buckets with others: decide each bucket once.
    compared = {bucket for bucket, where in members.items() if _compared(where, focus)}
    return [
        head for head in heads
        if (len(values[head.key]) > 1 if head.kind != "aligned"
            else not compared.isdisjoint(_buckets(head)))
    ]  # fmt: skip


def _compared(values: Mapping[str, set[str]], focus: Collection[str] | None) -> bool:
    """Two facts of a bucket (its documents' values) meet in a pair `_aligned_groups` compares:
    of two documents, one of them in focus, with different values. A sentence two pages share
    word for word states one value twice: most shared frames are such copies."""
    if len(values) < 2:
        return False  # most buckets: one document's
    for one, mine in values.items():
        if focus is not None and one not in focus:
            continue
        if any(other != one and len(mine | theirs) > 1 for other, theirs in values.items()):
            return True
    return False


def _in_focus(one: str, other: str, focus: Collection[str] | None) -> bool:
    return focus is None or one in focus or other in focus


def _buckets(head: FactHead) -> tuple[tuple[str, str, Scope], ...]:
    """The half-frame buckets of `_aligned_groups`: (side, the words on that side, scope)."""
    return ("before", head.before, head.scope), ("after", head.after, head.scope)


_FUNCTION_WORDS = frozenset(
    split_words("the a an of in on at to for by with and or is was were are be been as it its his "
              "her their this that from has have had also which who not but")
)  # fmt: skip


def word_edits(
    passages: Sequence[Passage],
    settings: ConflictSettings,
    first_order: int = 0,
    profiles: DocumentProfiles | None = None,
    focus: Collection[str] | None = None,
) -> list[Conflict]:
    """Plain words one document replaces in an otherwise equal stretch of another ("rugby
    league" / "cricket"), two documents at a time, when one is a near copy of the other. Both
    sides are lower-case words (names and figures are aligned facts), neither is a spelling
    variant of the other or holds it, and both sentences carry the same condition scope."""
    limit, share = settings.word_edit_max_document_tokens, settings.word_edit_min_copy_share
    vocabularies = document_vocabularies(passages, limit, profiles)
    need = settings.word_edit_min_shared_tokens
    found: list[Conflict] = []
    documents = sorted(vocabularies)
    tokens: dict[str, DocumentWords] = {}  # read only for documents of a pair that passes the
    # first bound
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
            if missing := {shorter, longer} - tokens.keys():
                tokens |= document_words(passages, limit, missing)
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
    same_entity: dict[tuple[str, str], bool] = {}  # by pair of documents

    def one_page(a: Fact, b: Fact) -> bool:
        pair = (a.document_id, b.document_id)
        if pair not in same_entity:
            same_entity[pair] = _same_entity(a.document_id, b.document_id, profiles, settings)
        return same_entity[pair]

    for bucket in buckets.values():
        bucket = bucket[: settings.aligned_max_bucket]
        for i, a in enumerate(bucket):
            for b in bucket[i + 1 :]:
                if (
                    a.norm != b.norm  # one value twice (most pairs): nothing to compare
                    and root(a.order) != root(b.order)
                    and _in_focus(a.document_id, b.document_id, focus)
                    # The pages first: decided once per pair of documents, it rules out most
                    # pairs of statements before their words are compared.
                    and one_page(a, b)
                    and _contradicts(a, b, settings)
                    and not _names_both(a, b, profiles)
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
    are about one entity (`_same_entity`) and not each names both values (`_names_both`)."""
    return _same_entity(a.document_id, b.document_id, profiles, settings) and not _names_both(
        a, b, profiles
    )


def _names_both(a: Fact, b: Fact, profiles: Mapping[str, DocumentProfile] | None) -> bool:
    """Each page mentions the other's value too: a page naming both, "Cleonymus ...
    Acrotatus", lists them, where an edit replaces one. False when a page is not profiled."""
    if profiles is None or a.document_id == b.document_id:
        return False
    one, other = profiles.get(a.document_id), profiles.get(b.document_id)
    if one is None or other is None:
        return False
    own_a, own_b = differing_tokens(a, b)
    return all(norm_token(t) in other.words for t in own_a) and all(
        norm_token(t) in one.words for t in own_b
    )


def _same_entity(
    one: str, other: str, profiles: Mapping[str, DocumentProfile] | None, settings: ConflictSettings
) -> bool:
    """The two documents share at least `min_same_entity_share` of their names and figures (or
    one of them is not profiled): an edited copy of one page, not two pages about different
    entities built from one template."""
    if profiles is None or one == other:
        return True
    mine, theirs = profiles.get(one), profiles.get(other)
    if mine is None or theirs is None:
        return True
    return mine.same_entity_share(theirs) >= settings.min_same_entity_share


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
