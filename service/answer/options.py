"""The options a how-to asks about, not the whole menu a step opens.

Manuals follow a step with the menu it opens, one "Label: what it does" line per option ("From
Settings, tap Apps. Tap More options for the following options: Sort by: ... Default apps: ...
Permission manager: ..."). The options are not steps: quoted whole, a list of a dozen hides the
one the question asked about, and the answer's sentence bound can cut it. A how-to answer keeps,
of each run of options, those that name what the question asks (asked_options); a run naming
none of it is kept whole (the question may ask for the menu itself). Labelled notes, warnings,
numbered steps and a task's "Label: Tap ..." are never options.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TypeVar

from service.answer.sentences import EvidenceSentence

__all__ = ["asked_options", "is_option"]

T = TypeVar("T")

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


def asked_options(
    items: Sequence[T], sentence_of: Callable[[T], EvidenceSentence], terms: Sequence[str]
) -> list[T]:
    """`items` (in answer order) without the options of a run that name none of the question's
    key `terms`, or only some of those another option of the run names ("Sort by: Sort the
    apps" against "Default apps: ... apps used by default" for a default app); a question naming
    two options ("security and connection") keeps both. Runs are consecutive option sentences
    of one document. Terms its page already named before the menu, in its opening or in the
    steps to the menu ("You can customize your hotspot's security and connection settings",
    "Tap More options ..."), ask for the menu, not for one of its options, and do not count."""
    kept: list[T] = []
    run: list[T] = []

    def close() -> None:
        home = sentence_of(run[0]).document_id if run else ""
        before = [sentence_of(i) for i in kept]
        named_before = _words(" ".join(s.text for s in before
                                       if s.document_id == home and not is_option(s)))  # fmt: skip
        asked = [t for t in terms if not _names(named_before, t)]
        named = [{t for t in asked if _names(_words(sentence_of(i).text), t)} for i in run]
        if len(run) < _MIN_RUN or not any(named):
            kept.extend(run)
        else:  # an option naming less of the question than another one does is not asked
            kept.extend(
                i for i, n in zip(run, named, strict=True) if n and not any(n < m for m in named)
            )
        run.clear()

    for item in items:
        sentence = sentence_of(item)
        if run and not (
            is_option(sentence) and sentence_of(run[-1]).document_id == sentence.document_id
        ):
            close()
        (run if is_option(sentence) else kept).append(item)
    close()
    return kept


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
