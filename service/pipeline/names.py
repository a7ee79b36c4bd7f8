"""The knowledge points a question names: the candidates' whole names found in the question
(titles, aliases, compact forms), and whether they lead it."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import msgspec

from service.pipeline.lucene import lucene_query
from service.pipeline.plan import QueryPlan
from service.text.relation_labels import compact_key

__all__ = ["NameMatch", "match_names", "name_query", "names_lead", "singulars", "word_runs"]

_MIN_NAME_CHARS = 3


class NameMatch(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    title: str
    matched: str  # the title or alias found in the question
    aliases: tuple[str, ...]
    document_id: str | None
    path: str | None
    operand: int | None  # index of the compare operand it resolves, if any


def match_names(
    query: str, operands: Sequence[str], knowledge_points: Iterable[Mapping[str, Any]]
) -> list[NameMatch]:
    """Knowledge points whose id, title or alias occurs in the question, longest names first.

    Latin names match whole words in compact form: a run of 1-4 consecutive question words whose
    letters equal the name's ('waterglass' = 'water glass' = 'Water-Glass'; a plural s/es is
    allowed), so 'Ear' never matches inside 'where are'. Names with CJK characters match as
    compact substrings, since CJK text has no spaces.
    """
    phrases = word_runs(query)
    text = compact_key(query)
    operand_keys = [compact_key(o) for o in operands]
    found: dict[str, NameMatch] = {}
    lengths: dict[str, int] = {}
    for kp in knowledge_points:
        for name in (kp["title"], *(kp["aliases"] or []), kp["id"]):
            key = compact_key(str(name))
            if key.isascii():
                if len(key) < _MIN_NAME_CHARS or not (
                    key in phrases or key + "s" in phrases or key + "es" in phrases
                ):
                    continue
            elif len(key) < 2 or key not in text:
                continue
            if lengths.get(kp["id"], 0) >= len(key):
                continue
            operand = next(
                (i for i, o in enumerate(operand_keys) if key in o or (o and o in key)), None
            )
            lengths[kp["id"]] = len(key)
            found[kp["id"]] = NameMatch(
                id=kp["id"], title=kp["title"], matched=str(name),
                aliases=tuple(kp["aliases"] or ()),
                document_id=kp["documentId"], path=kp["path"], operand=operand,
            )  # fmt: skip
    # A name inside a longer matched name ('glass' in 'water glass') is not a separate match.
    keys = {i: compact_key(m.matched) for i, m in found.items()}
    kept = [
        m for i, m in found.items()
        if not any(keys[i] != keys[j] and keys[i] in keys[j] for j in found)
    ]  # fmt: skip
    return sorted(kept, key=lambda m: (-lengths[m.id], m.id))


def word_runs(text: str, longest: int = 4) -> set[str]:
    """Compact forms of every run of 1..`longest` consecutive words of the text."""
    words = [w.lower() for w in re.findall(r"[A-Za-z0-9]+", text)]
    return {
        "".join(words[i : i + n]) for n in range(1, longest + 1) for i in range(len(words) - n + 1)
    }


def singulars(run: str) -> tuple[str, ...]:
    """The name keys a compact run of question words may match: itself, and without a plural
    s or es (match_names allows both)."""
    keys = [run]
    if run.endswith("s"):
        keys.append(run[:-1])
    if run.endswith("es"):
        keys.append(run[:-2])
    return tuple(keys)


def name_query(scope: str, query: str) -> str:
    """Lucene query for knowledge point names: the question's words, the compact forms of its
    2-4 word runs (matching nameKeys) and of every run without a plural ending, and its CJK
    runs."""
    words = re.findall(r"[A-Za-z0-9]+|[^\W\dA-Za-z_]+", query)
    plain = {w.lower() for w in words}
    runs = sorted({k for r in word_runs(query) for k in singulars(r)} - plain)
    return lucene_query(scope, [*words, *runs], [])


def names_lead(plan: QueryPlan, names: Sequence[NameMatch]) -> bool:
    """The knowledge-point channel joins the fusion only when a named concept is what the
    question is about: a definition, or names covering at least half of the key terms. A short
    title that merely occurs in a longer question ('Clock' in a question about the display)
    only expands the full-text query."""
    if plan.intent in ("definition", "compare"):
        return True
    named = {t for n in names for t in re.findall(r"\w+", compact_key(n.matched))}
    covered = [
        t
        for t in plan.terms
        if compact_key(t) in named or any(compact_key(t) in compact_key(n.matched) for n in names)
    ]
    return bool(plan.terms) and len(covered) * 2 >= len(plan.terms)
