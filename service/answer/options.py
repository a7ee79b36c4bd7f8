"""The options a question asks about, of the whole menu the answer quotes.

Manuals follow a step with the menu it opens, one "Label: what it does" line per option ("From
Settings, tap Apps. Tap More options for the following options: Sort by: ... Default apps: ...
Permission manager: ..."). Retrieval ranks the options by their likeness to the question, so an
answer holds the way to a menu and a few of its options, or none. A how-to or generic answer
brings in the whole menu a sentence of it opens or belongs to (with_menus), then keeps of each
menu the options the question asks about (asked_options); asked for the menu itself, it keeps
the menu whole. The options are not steps: quoted whole, a list of a dozen hides the one the
question asked about. Labelled notes, warnings, numbered steps and a task's "Label: Tap ..."
are never options.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from service.answer.sentences import EvidenceSentence
from service.pipeline.plan import key_terms
from service.pipeline.scope_words import is_slip

__all__ = ["MENU_SLOT", "Taken", "asked_options", "is_option", "with_menus"]

Taken = tuple[str, EvidenceSentence]  # (answer slot, sentence), as the composer takes them

# "Default apps: Choose ..." / "Show/Hide system apps: Show ..." (a short label, then its text)
_LABEL = r"[A-Z][\w'’/&+\-]*(?: [\w'’/&+\-]+){0,4}:\s+\S"
_OPTION = re.compile("^" + _LABEL)
# "From Settings, tap Device care > Battery for options: Battery usage: View ...": a lead-in
# the sentence splitter ran on into the menu's first option
_RUN_ON = re.compile(r":\s+(?=" + _LABEL + ")")
# "Always-on VPN: Tap the settings icon ..." is a task and its first step, "E-501 Fuser error:
# Turn the printer off ..." a fault and its remedy, not options
_ACTION = re.compile(
    r"\s*(?:tap|touch|press|click|swipe|drag|open|enter|go|hold|insert|remove|pull|push|turn)\b",
    re.I,
)
_TOGGLE = re.compile(r"\b(?:on or off|off or on)\b", re.I)  # "Touch tone: Turn the beep on or off"
_WORD = re.compile(r"\w+(?:-\w+)*")
_OPTION_LABEL = re.compile(r":\s")  # what ends an option's label
_CLAUSE = re.compile(r"[,;]|\b(?:and|then|or)\b", re.I)
_INFLECTION = 3  # letters an inflected form may add: "app" -> "apps", "charge" -> "charging"
_STEM = 3  # shortest word compared by its inflections
_MIN_RUN = 2  # a lone "Label: text" line is a sentence like any other
_RARE = 3  # a word named by over a third of a menu's options says nothing of which is asked
_COLONS = (":", "：")  # a menu's lead-in holds one: "The following options are available:"
MENU_SLOT = "option"  # the answer slot of a menu's lines that with_menus brings in


def is_option(sentence: EvidenceSentence) -> bool:
    match = _OPTION.match(sentence.text)
    return (
        match is not None
        and not sentence.label
        and sentence.step is None
        and not (
            _ACTION.match(sentence.text, match.end() - 1) and not _TOGGLE.search(sentence.text)
        )
    )


def with_menus(taken: Sequence[Taken], pool: Sequence[EvidenceSentence], limit: int) -> list[Taken]:
    """`taken` with the whole menu a taken sentence opens or belongs to, in reading order right
    after the first such sentence: a sentence opens a menu when the next sentence of its
    section (past at most one lead-in holding a colon) is an option. At most `limit` options
    of a menu are brought in; the pool (the evidence) holds the rest of it or not."""
    pages: dict[str, list[EvidenceSentence]] = {}
    for sentence in sorted(pool, key=lambda s: s.start):
        if sentence.text:
            pages.setdefault(sentence.document_id, []).append(sentence)
    menus = [
        (openers, {_key(s) for s in run}, run)
        for page in pages.values()
        for openers, run in _menus(page, limit)
    ]
    slots: dict[tuple[str, int], str] = {}
    for slot, sentence in taken:
        slots.setdefault(_key(sentence), slot)
    kept: list[Taken] = []
    placed: set[tuple[str, int]] = set()
    for slot, sentence in taken:
        key = _key(sentence)
        if key in placed:  # placed earlier with its menu
            continue
        kept.append((slot, sentence))
        placed.add(key)
        for openers, lines, run in menus:
            if key not in openers:
                continue
            if key in lines:  # a line of the menu: the lines before it first
                kept.pop()
                placed.discard(key)
            for line in run:
                if _key(line) not in placed:
                    kept.append((slots.get(_key(line), MENU_SLOT), line))
                    placed.add(_key(line))
    return kept


def _menus(
    page: Sequence[EvidenceSentence], limit: int
) -> list[tuple[set[tuple[str, int]], list[EvidenceSentence]]]:
    """(the keys of the sentences that open or belong to it, its lead-in and lines) of every
    menu of a page in reading order (`page`)."""
    found = []
    index = 0
    while index < len(page):
        if not (is_option(page[index]) and index + 1 < len(page) and (
                is_option(page[index + 1]) or _noted(page, index + 1))):  # fmt: skip
            index += 1
            continue
        first = index
        options = 0
        while index < len(page) and page[index].heading_path == page[first].heading_path:
            if is_option(page[index]):
                options += 1
            elif not _noted(page, index):
                break
            if options > limit:
                break
            index += 1
        run = list(page[first:index])
        before = page[max(0, first - 2) : first]
        before = [s for s in before if s.heading_path == run[0].heading_path]
        # the lead-in goes with its menu ("... these items: Resolution: Choose ..." is one
        # sentence when the page runs its menu on)
        if before and any(colon in before[-1].text for colon in _COLONS):
            run = [before.pop(), *run]
        openers = [*before[-1:], *run]
        found.append(({_key(s) for s in openers}, run))
    return found


def _noted(page: Sequence[EvidenceSentence], index: int) -> bool:
    """Whether page[index] is an option's note: one sentence between two options."""
    return 0 < index < len(page) - 1 and is_option(page[index - 1]) and is_option(page[index + 1])


def _key(sentence: EvidenceSentence) -> tuple[str, int]:
    return (sentence.document_id, sentence.start)


def asked_options(taken: Sequence[Taken], terms: Sequence[str], query: str) -> list[Taken]:
    """`taken` (in answer order) without the options of a menu that `query` does not ask
    about (_asked; `terms`: its key terms). A menu is a run of option sentences of one
    document, each option with at most one sentence between it and the next option: that
    sentence is the option's note ("This option only appears when the mop module is
    attached") and goes with it."""

    def option_of(index: int, document_id: str) -> bool:
        return (index < len(taken) and is_option(taken[index][1])
                and taken[index][1].document_id == document_id)  # fmt: skip

    clauses = _clauses(query)
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
        start = groups[0][0][1].start
        before = [s for _, s in taken if s.document_id == home and s.start < start]
        opening = " ".join(_RUN_ON.split(s.text, 1)[0] for s in before if not is_option(s))
        kept += _asked(groups, terms, opening, clauses)
    return kept


def _clauses(query: str) -> list[tuple[str, ...]]:
    """The key terms of each clause of the question ("turn on speed volume", "set a limit")."""
    return [terms for part in _CLAUSE.split(query) if (terms := key_terms(part))]


def _asked(
    groups: Sequence[Sequence[Taken]],
    terms: Sequence[str],
    opening: str,
    clauses: Sequence[Sequence[str]],
) -> list[Taken]:
    """The options (each with its note) the question asks about.

    - Options it names by their whole label ("the alarm sound and the alarm volume"), the
      longest label of a kind ("Font size" over "Font"): an option's text may name the
      question's words too ("Light ring: Pulse the light while the alarm sounds").
    - And the options whose text names the rest of the question in words few options share
      ("finish later" for "Delay end: Set the cycle to finish later"), an option naming only
      some of those another names going. The rest leaves out the words the page named before
      the menu (its `opening`, the steps to it): those ask for the menu; and the verb of a
      clause about an option named by its label or about the menu ("turn" of "turn on speed
      volume", "adjust" of "adjust the audio settings"): what to do with it, unless a label
      names the verb too ("Reset app preferences").
    - The whole menu when no option is named by its label and the page before the menu names
      most of the question's words but its verbs, or no option is asked about otherwise: the
      question asks for the menu ("How do I set up the schedule settings?" before "Tap Menu >
      Schedule settings").
    """
    every = [item for group in groups for item in group]
    if len(groups) < _MIN_RUN:
        return every
    labels = [{w.replace("-", "") for w in key_terms(_OPTION_LABEL.split(group[0][1].text, 1)[0])}
              for group in groups]  # fmt: skip
    by_name = [bool(label) and all(_names(set(terms), word) for word in label)
               for label in labels]  # fmt: skip
    named_labels = [label for label, asked in zip(labels, by_name, strict=True) if asked]
    page = _words(opening)
    verbs = {  # what a clause does with an option named by its label, or with the menu
        clause[0]
        for clause in clauses
        if any(all(_names(set(clause), w) for w in label) for label in named_labels)
        or all(_names(page, t) for t in clause[1:])
    }
    doing = {t for t in verbs if not any(_names(label, t) for label in labels)}
    rest = [t for t in terms if t not in doing and not _names(page, t)
            and not any(_names(label, t) for label in named_labels)]  # fmt: skip
    texts = [_words(group[0][1].text) for group in groups]
    rare = [t for t in rest if sum(_names(w, t) for w in texts) <= len(groups) // _RARE]
    named = [{t for t in rare if _names(w, t)} for w in texts]
    # Naming mostly the page's own words (the menu, the product), the question asks for the
    # menu: "How do I set up the picture on my Lumacast Vista 2 projector?" before "The Image
    # menu adjusts ... the picture from your Lumacast Vista 2."
    objects = [t for t in terms if t not in {clause[0] for clause in clauses}]
    menu = 2 * sum(_names(page, t) for t in objects) > len(objects)
    if not named_labels and (menu or not any(named)):
        return every
    return [
        item
        for group, label, asked, words in zip(groups, labels, by_name, named, strict=True)
        if (asked and not any(label < other for other in named_labels))
        or (not asked and words and not any(words < other for other in named))
        for item in group
    ]


def _words(text: str) -> set[str]:
    """The words of `text`, a hyphenated one also whole: "Wi-Fi" is "wi", "fi" and "wifi"."""
    words = _WORD.findall(text.lower())
    return {*(w.replace("-", "") for w in words), *(p for w in words for p in w.split("-"))}


def _names(words: set[str], term: str) -> bool:
    """Whether `words` name the term in any inflection ("apps" names "app", "usage" names
    "usages"; "reset" does not name "set", nor "settings" "set": an option's words are few, so a
    part of a word would tie options that do not)."""
    return any(_inflected(term, word) or _slip(term, word) for word in words)


def _slip(a: str, b: str) -> bool:
    """One of two words the other with a letter dropped or two swapped ("pasword")."""
    return min(len(a), len(b)) >= _STEM + 1 and (is_slip(a, b) or is_slip(b, a))


def _inflected(a: str, b: str) -> bool:
    short, long = sorted((a, b), key=len)
    if short == long:
        return True
    return len(short) >= _STEM and long.startswith(short) and len(long) - len(short) <= _INFLECTION
