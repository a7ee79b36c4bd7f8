"""The options a how-to asks about, not the whole menu a step opens.

Manuals follow a step with the menu it opens, one "Label: what it does" line per option ("From
Settings, tap Apps. Tap More options for the following options: Sort by: ... Default apps: ...
Permission manager: ..."). The options are not steps: quoted whole, a list of a dozen hides the
one the question asked about, and the answer's sentence bound can cut it. A how-to answer keeps,
of each menu, the options that name what the question asks (asked_options); a menu none of
whose options is asked about stays whole (the question may ask for the menu itself). Labelled
notes, warnings, numbered steps and a task's "Label: Tap ..." are never options.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from service.answer.sentences import EvidenceSentence

__all__ = ["Taken", "asked_options", "is_option"]

Taken = tuple[str, EvidenceSentence]  # (answer slot, sentence), as the composer takes them

# "Default apps: Choose ..." / "Show/Hide system apps: Show ..." (a short label, then its text)
_OPTION = re.compile(r"^[A-Z][\w'’/&+\-]*(?: [\w'’/&+\-]+){0,4}:\s+\S")
# "Always-on VPN: Tap the settings icon ..." is a task and its first step, "E-501 Fuser error:
# Turn the printer off ..." a fault and its remedy, not options
_ACTION = re.compile(
    r"\s*(?:tap|touch|press|click|swipe|drag|open|enter|go|hold|insert|remove|pull|push|turn)\b",
    re.I,
)
_WORD = re.compile(r"\w+")
_INFLECTION = 3  # letters an inflected form may add: "app" -> "apps", "charge" -> "charging"
_STEM = 3  # shortest word compared by its inflections
_MIN_RUN = 2  # a lone "Label: text" line is a sentence like any other


def is_option(sentence: EvidenceSentence) -> bool:
    match = _OPTION.match(sentence.text)
    return (
        match is not None
        and not sentence.label
        and sentence.step is None
        and not _ACTION.match(sentence.text, match.end() - 1)
    )


def asked_options(taken: Sequence[Taken], terms: Sequence[str]) -> list[Taken]:
    """`taken` (in answer order) without the options of a menu that are not asked about
    (_asked). A menu is a run of option sentences of one document, each option with at most
    one sentence between it and the next option: that sentence is the option's note ("This
    option only appears when the mop module is attached") and goes with it."""

    def option_of(index: int, document_id: str) -> bool:
        return (index < len(taken) and is_option(taken[index][1])
                and taken[index][1].document_id == document_id)  # fmt: skip

    kept: list[Taken] = []
    index = 0
    while index < len(taken):
        home = taken[index][1].document_id
        if not option_of(index, home):
            kept.append(taken[index])
            index += 1
            continue
        groups = [[taken[index]]]
        index += 1
        while index < len(taken) and taken[index][1].document_id == home:
            if option_of(index, home):
                groups.append([taken[index]])
            elif len(groups[-1]) == 1 and option_of(index + 1, home):
                groups[-1].append(taken[index])
            else:
                break
            index += 1
        opening = " ".join(s.text for _, s in kept if s.document_id == home and not is_option(s))
        kept += _asked(groups, terms, opening)
    return kept


def _asked(groups: Sequence[Sequence[Taken]], terms: Sequence[str], opening: str) -> list[Taken]:
    """The options (each with its note) that name what the question asks: an option naming
    none of its key `terms`, or only some of those another option names, goes ("Sort by: Sort
    the apps" beside "Default apps: ... apps used by default" for a default app); a question
    naming two options ("the alarm sound and the alarm volume") keeps both. The whole menu
    stays when no option names a term, or when the page before the menu (its `opening`, the
    steps to it) names as many as the best option does: the question asks for the menu ("How
    do I set up the schedule settings?" before "Tap Menu > Schedule settings")."""
    every = [item for group in groups for item in group]
    named = [{t for t in terms if _names(_words(group[0][1].text), t)} for group in groups]
    best = max(len(n) for n in named)
    before = sum(_names(_words(opening), t) for t in terms)
    if len(groups) < _MIN_RUN or best == 0 or before >= best:
        return every
    return [
        item
        for group, words in zip(groups, named, strict=True)
        if words and not any(words < other for other in named)
        for item in group
    ]


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def _names(words: set[str], term: str) -> bool:
    """Whether `words` name the term in any inflection ("apps" names "app", "usage" names
    "usages"; "reset" does not name "set", nor "settings" "set": an option's words are few, so a
    part of a word would tie options that do not)."""
    return any(_inflected(term, word) for word in words)


def _inflected(a: str, b: str) -> bool:
    short, long = sorted((a, b), key=len)
    if short == long:
        return True
    return len(short) >= _STEM and long.startswith(short) and len(long) - len(short) <= _INFLECTION
