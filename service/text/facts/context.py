"""The context that tells facts apart, added to their condition scope: the circumstance a
sentence opens with, and the section heading of a subject named only by its page. Applied to
facts bound to their passages, by the conflict scan and by ingest when it writes facts as
nodes (the same facts, grouped the same way)."""

from __future__ import annotations

import re
from collections.abc import Sequence

import msgspec

from service.text.facts.model import Fact, Passage
from service.text.tokens import split_words

__all__ = ["in_context"]

# A sentence that opens with the circumstance it holds in ("At an outdoor temperature of -7 °C,
# ...", "With the 45 W charger, ...", "In Quiet mode, ..."): its facts belong to that condition.
_LEAD = re.compile(
    r"^\W*(?:at|with|in|on|for|under|below|above|during|from|using|without|in case of)\b"
    r"[^,;:]{1,80},",
    re.IGNORECASE,
)
# A subject named only by the page it is on: "The tray holds up to 250 sheets.", "The default
# timeout is 2 minutes." (no name or figure of its own before the value).
_ANAPHORIC = re.compile(r"^\W*(?:the|this|its|it|these|they)\b", re.IGNORECASE)
_NAMES = re.compile(r"\b(?:[A-Z][\w'’-]*|\d[\w.]*)")
_LIST_NUMBER = re.compile(r"^\s*\d{1,3}[.)]")


def in_context(facts: Sequence[Fact], passages: Sequence[Passage]) -> list[Fact]:
    """Facts with the context that tells them apart, as scope: the circumstance a sentence
    opens with, and, for a subject named only by its page, its section heading ("The tray" of
    "Loading paper in Tray 2" is not that of "... in Tray 1"). A list item's number is no
    value ("4. Push down the lever" / "8. Check the pressure")."""
    headings = {p.paragraph_id: p.heading_path for p in passages}
    kept: list[Fact] = []
    for fact in facts:
        lo = fact.value_start - fact.sentence_start
        if (
            fact.kind == "aligned"
            and _LIST_NUMBER.match(fact.sentence[: max(lo, 0) + 4])
            and (lo <= 4)
        ):
            continue
        extra: list[tuple[str, str]] = []
        lead = _LEAD.match(fact.sentence)
        if lead and lead.end() <= lo and not fact.scope:  # "On Android," is a platform already
            extra.append(("circumstance", " ".join(lead.group().lower().split())))
        before = fact.sentence[:lo]
        path = headings.get(fact.paragraph_id, ())
        # Only a template sentence (an aligned fact): an attribute fact names its subject
        # ("The calibration tolerance is 0.10 mm"), which two pages may well contradict on.
        if (fact.kind == "aligned" and path and _ANAPHORIC.match(before)
                and not _NAMES.search(before, 1)):  # fmt: skip
            extra.append(("section", " ".join(split_words(path[-1].lower()))))
        kept.append(msgspec.structs.replace(fact, scope=tuple(sorted({*fact.scope, *extra})))
                    if extra else fact)  # fmt: skip
    return kept
