"""check_typed_value: does the answer hold a value of the type its question asks for?

"How long is the warranty?" is answered by a sentence with a duration in it about the asked
subject, not by the page's paragraph about the kettle's capacity, nor by the battery's warranty
beside a question about the frame's. The check runs on the released draft: an answer whose
quoted sentences hold no value of the asked type is `partial`, naming the value it lacks, or,
when the best evidence was already uncertain to answer the question at all, an abstention
(docs/evidence.md, "Answer types").
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from typing import Literal

import msgspec

from service.answer.composer import Draft, DraftSentence
from service.answer.options import is_option
from service.answer.sufficiency.tasks import FAMILIES, tasks_named
from service.answer.sufficiency.terms import has_term, stems
from service.pipeline.plan import QueryPlan
from service.text.answer_types import (
    AnswerType,
    holds_instance,
    names_attribute,
    number_word,
    role_word,
    unit_word,
)
from service.text.identifiers import identifiers
from service.text.language import LIGHT_VERBS, function_word
from service.text.spans import split_sentences
from service.text.vocabulary import english_words

__all__ = ["TypedValue", "check_typed_value", "missing_value_caveat", "stands_for_subject"]

Outcome = Literal["untyped", "present", "missing"]


class TypedValue(msgspec.Struct, frozen=True, kw_only=True):
    expected: str | None  # the asked type's name, None for an untyped question
    noun: str  # what the answer names when the value is missing
    outcome: Outcome
    sentences: tuple[int, ...] = ()  # answer sentences holding a value of the type


class _Read(msgspec.Struct, frozen=True, kw_only=True):
    """A quoted sentence as the checks read it, built once: with its section headings (a
    sentence under "## Meeting rooms" is about meeting rooms) and its page's title, each with
    its stems."""

    sentence: DraftSentence
    text: str
    words: set[str]
    title: str
    in_title: set[str]
    page: str  # the whole page with its headings ("" when not read)


def _read(sentence: DraftSentence, pages: Mapping[str, str]) -> _Read:
    text, title = _with_headings(sentence), _title_of(sentence)
    return _Read(sentence=sentence, text=text, words=stems(text), title=title,
                 in_title=stems(title), page=_page(sentence, pages))  # fmt: skip


def _readings(
    plan: QueryPlan, sentences: tuple[DraftSentence, ...], pages: Mapping[str, str]
) -> tuple[list[bool], list[_Read], list[float | None]]:
    """Which sentences are quoted, each as the checks read it, and each quoted one's share of
    what the question asks about (0.0 for the others)."""
    quoted = [s.kind in ("evidence", "conflict", "generated") for s in sentences]
    reads = [_read(s, pages) for s in sentences]
    shares = [_named_share(r, plan) if q else 0.0 for r, q in zip(reads, quoted, strict=True)]
    return quoted, reads, shares


def check_typed_value(
    plan: QueryPlan, draft: Draft, pages: Mapping[str, str] | None = None
) -> TypedValue:
    """`pages`: paragraph id -> the whole text of its document, for the identifiers and names a
    page names elsewhere (_names_identifiers, _names_asked_names) and its opening
    (_subject_names)."""
    kind = plan.answer_type
    if kind is None:
        return TypedValue(expected=None, noun="", outcome="untyped")
    sentences = draft.sentences
    pages = pages or {}
    asked_ids = identifiers(plan.query)
    asked_times = _times_named(plan.query)
    quoted, reads, shares = _readings(plan, sentences, pages)
    referred = [_referred(sentences, i) for i in range(len(sentences))]
    whole = _whole_shares(plan, reads, quoted)
    holding = tuple(
        i for i, s in enumerate(sentences)
        if quoted[i]
        and (holds_instance(_value_text(s.text, plan, kind), kind)
             or _states_asked(plan, sentences, reads, i)
             or _menu_placed(sentences, i, kind))
        and _names_identifiers(reads[i], asked_ids, plan.query, referred[i])
        and _names_asked_names(reads[i], referred[i], plan.query)
        and not _of_another_name(s.text, plan.query)
        and _names_asked_act(reads[i], plan)  # its own act, whatever the sentences before name
        and (_about(reads[i], shares[i], plan)
             or (_continues(sentences, i) and _about(reads[i - 1], shares[i - 1], plan))
             or _about_with_lead(plan, sentences, reads, shares, i))
        and not _better_named_without_value(i, sentences, whole, kind, quoted)
        and not _another_time(reads[i], asked_times)
        and not (kind.name == "yes_no" and _no_day(reads[i], asked_times))
    )  # fmt: skip
    return TypedValue(expected=kind.name, noun=kind.noun,
                      outcome="present" if holding else "missing", sentences=holding)  # fmt: skip


def _states_asked(
    plan: QueryPlan, sentences: tuple[DraftSentence, ...], reads: list[_Read], i: int
) -> bool:
    """A yes/no question is answered by a sentence that states what it asks, in whatever form:
    an instruction ("Add more contacts to a group, or remove contacts." for "Is it possible to
    add or remove contacts from groups?") or a feature line ("See and manage phone notifications
    from your PC."). Without a word that affirms or denies (holds_instance), the sentence (with
    its section headings and the sentence before it in its paragraph: "Summer switch-off stops
    space heating. Hot water heating continues all year.") must itself name every word the
    question asks about, the page title's words included ("Tables seat up to six guests" on
    "Dogs at the Lantern" says nothing of dogs), and an exception the question asks of
    ("Connect the printer to Wi-Fi first" does not say whether it works without Wi-Fi)."""
    kind = plan.answer_type
    if kind is None or kind.name != "yes_no":
        return False
    read = _joined(reads[i - 1 : i + 1]) if _continues(sentences, i) else reads[i]
    counts = _named_counts(read, plan, beyond_title=False)
    if counts is None:
        return False
    named, asked = counts
    conditions = _CONDITIONS.intersection(re.findall(r"\w+", plan.query.lower()))
    return named == asked and conditions <= set(re.findall(r"\w+", read.text.lower()))


def _menu_placed(sentences: tuple[DraftSentence, ...], i: int, kind: AnswerType) -> bool:
    """A menu's option is where its menu is: "App info: Review the widget usage" answers where
    to review the widget usage when the lead-in of its menu, quoted before it, holds the place
    ("From a Home screen, touch and hold a widget, and tap an option:")."""
    if kind.name != "place" or not _option_line(sentences[i]):
        return False
    home = {e.document_id for e in sentences[i].evidence}
    j = i - 1
    while j >= 0 and _option_line(sentences[j]):
        j -= 1
    if j < 0 or not home & {e.document_id for e in sentences[j].evidence}:
        return False
    lead_in = sentences[j].text
    return any(colon in lead_in for colon in (":", "：")) and holds_instance(lead_in, kind)


def _option_line(sentence: DraftSentence) -> bool:
    return bool(sentence.evidence) and all(is_option(e) for e in sentence.evidence)


def _value_text(text: str, plan: QueryPlan, kind: AnswerType) -> str:
    """The sentence with what cannot be the asked value put out of the way. A person question's
    own names: "Without a licence key, Ledgerline Sync runs as a trial" names no one who could
    help with a Ledgerline licence key, and "Helion was founded by Anna Berg" still names her;
    and its own roles: "Restaurant accounts have a separate account manager" does not say who
    the account manager is. A minimum, for a question about the latest version: "open the
    Trellis app, version 4.0 or later" does not say which version is the latest. Numbers that
    label things the question names, for a count of something else: "plots 7 and 8" count no
    one on a plot's waiting list."""
    if kind.name == "version" and _LATEST.search(plan.query):
        return _MINIMUM_VERSION.sub(" ", text)
    if kind.name == "quantity" and kind.counted:
        named = stems(plan.query) - stems(kind.counted)

        def unlabel(label: re.Match[str]) -> str:
            noun = label.group("noun").lower()  # "up to 10" is no label
            return " " if not function_word(noun) and stems(noun) <= named else label.group(0)

        return _LABEL.sub(unlabel, text)  # "plots 7 and 8" counts no people on a waiting list
    if kind.name != "person":
        return text
    asked = {w.lower() for w in re.findall(r"\w+", plan.query) if not function_word(w.lower())}

    def put_away(name: re.Match[str]) -> str:
        words = {w.lower() for w in re.findall(r"\w+", name.group(0))}
        return "it" if asked & words else name.group(0)

    roles = [w for w in asked if role_word(w)]  # "a separate account manager" is not one
    if roles:
        text = re.sub(rf"\b(?:{'|'.join(map(re.escape, roles))})\b", "it", text, flags=re.I)
    return _CAPITALISED_RUN.sub(put_away, text)


_LATEST = re.compile(r"\b(?:latest|current|newest|most recent)\b", re.IGNORECASE)
_MINIMUM_VERSION = re.compile(
    r"\b(?:at least|minimum(?: of)?)\s+(?:version\s+|v)?\d+(?:\.\d+)*|"
    r"\b(?:version\s+|v)?\d+(?:\.\d+)*\s*(?:or|and)\s+(?:later|newer|higher|above|up)\b",
    re.IGNORECASE,
)
# A noun and the numbers that name some of them: "plots 7 and 8", "bays 14 to 18"; not a
# verb and a count ("prints 24 pages"), whose number a word goes on from.
_LABEL = re.compile(
    r"\b(?P<noun>[A-Za-z]+)\s+\d+(?:\s*(?:,|and|or|to|-|–)\s*\d+)*"
    r"(?!\d|\s+(?!(?:and|or|to|in|on|at|of|for|with|near|next|are|is|were|was)\b)[A-Za-z])"
)
_CAPITALISED_RUN = re.compile(r"\b[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*")


def _about(read: _Read, share: float | None, plan: QueryPlan) -> bool:
    """The sentence names at least half of what the question asks about beyond its page's
    subject: "six months" in "new engineers have a probation period of six months" is no
    answer to how long the security training takes. A unit the question names ("in
    kilograms") is the asked type, which holds_instance checks, not a subject; with nothing
    else asked, a quantity's sentence must name the asked attribute ("weighs" for "how heavy";
    a duration is its own attribute: "how long does a charge take"). The
    sentence before it in its paragraph may name it instead (check_typed_value)."""
    kind = plan.answer_type
    role = _asked_role(plan.query) if kind is not None and kind.name == "person" else None
    if role and not has_term(read.text, role, read.words):
        return False  # "Who is the CEO of Helion?" is not answered by its support line's hours
    if _qualified_otherwise(read, plan):
        return False  # "the battery warranty" beside a question about the frame's
    if not _names_asked_act(read, plan):
        return False  # "aqua aerobics takes place at 10:00" is no closing time
    if _another_task(read, plan):
        return False  # "check the brake pads every 1,000 km" is not when to replace them
    if kind is not None and kind.name == "yes_no" and not _names_predicate(read, plan):
        return False  # "Elmstead Dental Practice is at 12 Harrow Lane": no word of NHS patients
    if share is None:  # only the page's subject and the type: the attribute must be the asked one
        return kind is None or kind.name != "quantity" or names_attribute(read.sentence.text, kind)
    return share >= 0.5


def _names_predicate(read: _Read, plan: QueryPlan) -> bool:
    """A yes or no is asked of what its subject does or is, and nearly every sentence holds an
    instance of one ("is", "can"): a sentence that names the subject's name alone ("Elmstead
    Dental Practice is at 12 Harrow Lane" for "Does Elmstead Dental Practice take NHS
    patients?") does not answer it, however many words of the question that name has. Some
    other word it asks about (_asked_about) must be named, when there is one."""
    names = {w.lower() for name in _asked_names(plan.query) for w in name.split()}
    rest = [t for t in _asked_about(read, plan) if t.lower() not in names]
    return not rest or any(_names_word(read, t) for t in rest)


def _qualified_otherwise(read: _Read, plan: QueryPlan) -> bool:
    """The sentence gives the asked attribute of another thing: "The battery warranty is 3
    years" for "How long is the warranty on the Vela City frame?". Every mention of an
    attribute the question names is qualified by a word the question does not hold, and the
    sentence leaves out something else the question asks about."""
    asked = [t.lower() for t in plan.terms]
    attributes = [a for a in asked if a in _ATTRIBUTE_NOUNS]
    if not attributes:
        return False
    if all(has_term(read.text, t, read.words) or has_term(read.title, t, read.in_title)
           for t in asked
           if t not in attributes and not function_word(t)):  # fmt: skip
        return False
    for attribute in attributes:
        # "a 10-year warranty" measures the warranty; it names no other thing's.
        qualifiers = [m.group(1).lower() for m in re.finditer(
            rf"(?<!-)\b([a-z]+)\s+{attribute}s?\b", read.sentence.text, re.IGNORECASE)]  # fmt: skip
        if qualifiers and all(q not in asked and not function_word(q) and q not in _GRAMMAR
                              for q in qualifiers):  # fmt: skip
            return True
    return False


# Attributes a word before them gives to one thing of several: "battery warranty", "adult
# fare", "late fee". Not "rate" or "limit", whose word before says which kind ("deforestation
# rate", "speed limit") in words a question often puts another way.
_ATTRIBUTE_NOUNS = frozenset(
    re.findall(
        r"\w+",
        "warranty guarantee price fee deposit cost charge fare rent allowance capacity discount",
    )
)


def _names_asked_act(read: _Read, plan: QueryPlan) -> bool:
    """A time or a place asked of a start or an end ("what time does the pool close", "where do
    the walks end") is of that act: the sentence names it or another word for it ("shuts",
    "finishes"). For a time, a span of hours holds both ("staffed from 08:30 to 17:30"), "from
    9:00" a start and "until 18:00" an end. A lone time or place is of another event ("aqua
    aerobics takes place at 10:00", "walkers meet in the station car park")."""
    kind = plan.answer_type
    if kind is None or kind.name not in ("time", "place"):
        return True
    acts = set(plan.terms) & (_TIME_ENDS if kind.name == "time" else _ROUTE_ENDS)
    if not acts or (kind.name == "place" and _END_UP.search(plan.query)):
        return True  # "where do parcels end up" asks where they go, not where a route ends
    starts, ends = bool(acts & _STARTS), bool(acts - _STARTS)
    named = (_STARTS if starts else frozenset()) | (_TIME_ENDS - _STARTS if ends else frozenset())
    if kind.name == "place":  # a river rises and empties: "arises in north-central Maine"
        named |= (_SOURCE if starts else frozenset()) | (_MOUTH if ends else frozenset())
    if any(has_term(read.text, w, read.words) for w in named):
        return True
    if kind.name == "place":
        return False
    return bool(
        _HOURS_SPAN.search(read.text)
        or (starts and _FROM.search(read.text))
        or (ends and _UNTIL.search(read.text))
    )


_STARTS = frozenset(["start", "starts", "begin", "begins", "open", "opens"])
# Where a route starts or ends ("where do the walks end"); "where do I open an account" asks
# where to do something, not where it begins.
_ROUTE_ENDS = frozenset(["start", "starts", "begin", "begins", "end", "ends", "finish", "finishes"])
_SOURCE = frozenset(["rise", "rises", "arise", "arises", "source", "originate", "originates"])
_MOUTH = frozenset(["empty", "empties", "mouth", "terminate", "terminates", "terminus"])
_END_UP = re.compile(r"\b(?:end|ends|ended|ending) up\b", re.IGNORECASE)
# "from 9 to 17:30", "between 8 and 10 am", "09:00-17:00", "9am to 5pm".
_CLOCK = r"\d{1,2}(?:[:.]\d{2}|\s?[ap]\.?m\.?)"
_HOURS_SPAN = re.compile(
    rf"\b(?:from|between)\s+\d{{1,2}}(?:[:.]\d{{2}})?\s*(?:[ap]\.?m\.?\s*)?"
    rf"(?:to|and|until|till|-|–)\s*\d|\b{_CLOCK}\s*(?:-|–|to|until|till)\s*{_CLOCK}",
    re.IGNORECASE,
)
_FROM = re.compile(rf"\b(?:from|after)\s+{_CLOCK}", re.IGNORECASE)
_UNTIL = re.compile(rf"\b(?:until|till|by|before)\s+{_CLOCK}", re.IGNORECASE)


def _another_task(read: _Read, plan: QueryPlan) -> bool:
    """A frequency asked of an upkeep task ("How often should I replace the brake pads?") is
    not given by a sentence that names only other tasks ("Check the brake pads every 1,000
    km"). Rinsing is a way of cleaning; checking is not replacing. A sentence that names no
    task ("the filter needs attention every two weeks") is not judged here."""
    kind = plan.answer_type
    if kind is None or kind.name != "frequency":
        return False
    asked, said = tasks_named(plan.query), tasks_named(read.sentence.text)
    return bool(asked) and bool(said) and not asked & said


def _asked_role(question: str) -> str | None:
    """The role a "who is the ..." question asks who fills ("Who is the CEO of Helion?" ->
    "ceo", "who was the release manager for 5.8?" -> "manager"): the person's sentence must
    name it."""
    match = _WHO_IS_THE.match(question)
    role = match.group("role").lower() if match else None
    return None if role is None or role in _ANYONE else role


# Nouns that name a person without a role ("who was the man in ..."): any name answers them.
_ANYONE = frozenset(
    re.findall(r"\w+", "man men woman women person people guy girl boy lady one someone character")
)


_WHO_IS_THE = re.compile(
    r"\W*who(?:'s|\s+is|\s+was|\s+are|\s+were|\s+will\s+be)\s+(?:the|our|your|their|my)\s+"
    r"(?:[\w-]+\s+){0,2}?"
    r"(?P<role>[\w-]+)(?=\s+(?:of|for|at|in|on|who|that|this|next)\b|\s*\??\s*$)",
    re.IGNORECASE,
)


def _with_headings(sentence: DraftSentence) -> str:
    """The sentence with its own section headings ("## Meeting rooms" over it)."""
    return " ".join((sentence.text, *(h for e in sentence.evidence for h in e.heading_path[1:])))


def _named_share(read: _Read, plan: QueryPlan) -> float | None:
    """The share of what the question asks about beyond the sentence's page title that the
    sentence or its headings name (None when the question asks about nothing else)."""
    counts = _named_counts(read, plan)
    return None if counts is None else counts[0] / counts[1]


def _named_counts(
    read: _Read, plan: QueryPlan, *, beyond_title: bool = True, excuse_codes: bool = True
) -> tuple[int, int] | None:
    """(named, asked) of _named_share; `beyond_title` False counts the words the page title
    names too, `excuse_codes` False an identifier the sentence does not name."""
    asked = _asked_about(read, plan, beyond_title=beyond_title)
    said = tasks_named(read.sentence.text, FAMILIES)  # "rinse it" names the asked "clean"
    named = [
        t for t in asked
        if _names_word(read, t) or tasks_named(t, FAMILIES) & said
    ]  # fmt: skip
    # An identifier the sentence does not name ("LP-540" in its manual's "the printer prints 24
    # pages a minute") is judged on its own (_names_identifiers), not counted missing here.
    codes = {value for _, value in identifiers(plan.query)}
    asking = _asking_words(plan)
    excused = codes if excuse_codes else set()
    asked = [t for t in asked if t in named or not (t.lower() in excused or t in asking)]
    # "who won the civil war, the south or the north": either alternative is named enough.
    for first, second in _ALTERNATIVES.findall(plan.query.lower()):
        if first in asked and second in asked:
            asked.remove(second)
            if second in named:
                named = [first if t == second else t for t in named if t != first]
    if not asked:
        return None
    return len(named), len(asked)


def _asked_about(read: _Read, plan: QueryPlan, *, beyond_title: bool = True) -> list[str]:
    """The question's words that say what it asks about, for _named_counts: not its type, its
    context, its framing or its grammar, and (`beyond_title`) not what the sentence's page
    title or page subject names."""
    context = _context_words(plan.query)
    framing = _aspect_words(plan.query) | _starting_point(plan.query, plan.answer_type)
    subject = _subject_names(read, plan.query) if beyond_title else set()
    return [
        t for t in plan.terms
        if t.lower() not in context
        and not function_word(t) and not unit_word(t) and t not in _TYPE_NOUNS
        and t not in _GRAMMAR and t not in LIGHT_VERBS and t not in _FRAMES and t not in framing
        and not number_word(t)  # "four months ago" says when, not what
        and not _names_type(t, plan.answer_type)
        and not (beyond_title and (has_term(read.title, t, read.in_title) or t in subject))
    ]  # fmt: skip


def _whole_shares(plan: QueryPlan, reads: Sequence[_Read], quoted: Sequence[bool]) -> list[float]:
    """Each quoted sentence's share of everything the question asks about that it, its
    headings, its page's title or its page's subject name, which _better_named_without_value
    compares. _named_share leaves out what each sentence's own title and page name, so two
    sentences' shares may be of different remainders: the fare row "Single - Adult: GBP 2.40"
    of a page that opens with its town leaves the town out, the opening itself does not. An
    asked identifier a sentence leaves out counts as not named here: "the inverter reconnects"
    in a fault-code row does not name "the SX-5000 inverter" better than "The SX-5000 carries
    a 10-year warranty"."""
    shares = []
    for read, said in zip(reads, quoted, strict=True):
        whole = _named_counts(read, plan, beyond_title=False, excuse_codes=False) if said else None
        if whole is None:
            shares.append(0.0)
            continue
        named, asked = _named_counts(read, plan, excuse_codes=False) or (0, 0)
        shares.append((named + whole[1] - asked) / whole[1])  # what title and page name count
    return shares


def _context_words(question: str) -> frozenset[str]:
    """The words of what a question tells before it asks, and not in what it asks: "My Aerodry
    D20 keeps filling up - how many litres does the water tank actually hold?" asks only of the
    tank. The asked part is the last clause after a dash or a sentence's end; one that points
    back by a pronoun asks of what the context names ("My cat never goes outside - how often
    does she need a booster jab?"; "My restaurant has just opened an account. Who will be our
    account manager?")."""
    parts = [p for p in _CLAUSE_BREAK.split(question) if p.strip()]
    if len(parts) < 2:
        return frozenset()
    asked = set(re.findall(r"\w+", parts[-1].lower()))
    if asked & _POINTING_BACK:
        return frozenset()
    return frozenset(w for p in parts[:-1] for w in re.findall(r"\w+", p.lower())) - asked


def _aspect_words(question: str) -> set[str]:
    """ "keep" or "continue" before a verb in -ing says the act goes on, not what is asked: "Can
    I keep printing?" is answered by "You can continue printing until E-202 appears"."""
    return {m.group(1).lower() for m in _ASPECT.finditer(question)}


_ASPECT = re.compile(r"\b(keep|continue|carry)\s+(?:on\s+)?\w+ing\b", re.IGNORECASE)


def _starting_point(question: str, kind: AnswerType | None) -> set[str]:
    """What a duration is counted from ("after I buy it", "after the operation") says when it
    starts, not what it is of: "A single ticket is valid for 90 minutes from the time it is
    issued" answers how long a ticket can be used after buying it, and "Stitches are removed 10
    days after surgery" how many days after the operation they come out. The words run to the
    next auxiliary ("after the operation are my dog's stitches ...")."""
    if kind is None or kind.name != "duration":
        return set()
    words: set[str] = set()
    for start in _AFTER.finditer(question):
        for word in re.findall(r"[\w']+", start.group(1).lower())[:_STARTING_POINT_WORDS]:
            if word in _AUXILIARIES:
                break
            words.add(word)
    return words


_AFTER = re.compile(r"\b(?:after|following)\s+([^,;:?.!]*)", re.IGNORECASE)
_STARTING_POINT_WORDS = 4
_AUXILIARIES = frozenset(
    re.findall(
        r"\w+",
        "is are was were be do does did can could should will would must may might has have had",
    )
)


_CLAUSE_BREAK = re.compile(r"\s[-–—]\s|(?<=[.!?;])\s+")
_POINTING_BACK = frozenset(
    re.findall(
        r"\w+", "it its he him his she her they them their this that these those we us our my"
    )
)


def _asking_words(plan: QueryPlan) -> set[str]:
    """The words of the question's phrases that say how it asks (_ASKING, _ASKING_A_PLACE)."""
    kind = plan.answer_type
    phrases = [m.group(0) for m in _ASKING.finditer(plan.query)]
    if kind is not None and kind.name == "place":
        phrases += [m.group(0) for m in _ASKING_A_PLACE.finditer(plan.query)]
    return {w for phrase in phrases for w in re.findall(r"\w+", phrase.lower())} & _ASKING_WORDS


def _names_type(term: str, kind: AnswerType | None) -> bool:
    """The word says what kind of value is asked, not about what: the counted noun of "how many
    people" ("Harbour seats 14"), the start or end a time or a place asks for ("what time does
    reception stop being staffed": "staffed from 08:30 to 17:30"; _names_asked_act judges it),
    or how a person question reaches its person ("who do I talk to about ...") or the people it
    is one of ("which of the vets"), or a person asked without a role ("who was the man in
    ..."), or the lasting a duration asks for ("how long does the spin class last", "how long
    can I keep a Blu-ray": "Loan period: 1 week"), or the permission a yes or no asks for ("am
    I allowed to keep rabbits": "weeds must not be allowed to seed" names none of it)."""
    if kind is None:
        return False
    return (
        term == kind.counted
        or (kind.name == "time" and term in _TIME_ENDS)
        or (kind.name == "place" and term in _ROUTE_ENDS)
        or (kind.name == "duration" and term in _LASTING)  # "Length: 45 minutes"
        or (kind.name == "yes_no" and term in _PERMISSION)
        or (
            kind.name == "person"
            and (term in _ADDRESSING or term in _ANYONE or term in kind.cue.lower().split())
        )
    )


def _names_word(read: _Read, term: str) -> bool:
    """The sentence or its headings name `term`, in its own form or another (_formed_alike)."""
    return has_term(read.text, term, read.words) or _formed_alike(term, read.words)


def _formed_alike(term: str, words: set[str]) -> bool:
    """'stocktake' against 'stocktaking', 'installed' against 'installation', 'drop' against
    'dropped': one word formed another way, which the crude stem does not join."""
    root = term[: max(5, len(term) - 2)]
    doubled = term + term[-1:]  # the stem of "dropped" is "dropp"
    return (len(term) >= 6 and any(w.startswith(root) for w in words)) or doubled in words


def _better_named_without_value(
    i: int,
    sentences: tuple[DraftSentence, ...],
    shares: Sequence[float],
    kind: AnswerType,
    quoted: list[bool],
    *,
    leans: bool = True,
) -> bool:
    """Another quoted sentence names the question's subject better and gives no value of the
    type: that sentence is about the asked subject, and sentence i's value about a sibling
    ("Vans are available at a higher hourly rate, shown in the app" beside "Hourly rate:
    EUR 6.50" for the cars). The sentence just before i in its paragraph is its lead-in ("The
    X200 has a warranty. It lasts two years."), not a rival, unless i must stand on its own
    (`leans` False) and does not refer back to it; one that does ("This service is run by
    ...") is about what its lead-in names. `shares`: _whole_shares."""
    share = shares[i]
    refers = _continues(sentences, i) and _REFERS_BACK.match(sentences[i].text) is not None
    if refers:
        share = max(share, shares[i - 1])
    lead_in = i - 1 if refers or (leans and _continues(sentences, i)) else None
    return any(
        quoted[j] and other > share and not holds_instance(sentences[j].text, kind)
        and j != lead_in
        for j, other in enumerate(shares) if j != i
    )  # fmt: skip


def _another_time(read: _Read, asked: Mapping[str, frozenset[str]]) -> bool:
    """The sentence gives its value for another day, season, month or year than the question
    names, and not for the asked one: "The pool closes at 18:00 on both weekend days" says
    nothing of weekdays, "The autumn term starts on 8 September" nothing of the spring term,
    "the price of a barrel remained at $12 from 1974 to 1979" nothing of 1970."""
    if not asked:
        return False
    said = _times_named(read.text)
    return any(kind in said and not said[kind] & covered for kind, covered in asked.items())


def _no_day(read: _Read, asked: Mapping[str, frozenset[str]]) -> bool:
    """A yes or no asked of a day ("is the westpark branch open on saturdays") is not given by a
    sentence that names no day: "The Westpark branch is open three afternoons a week" does not
    say which."""
    return (
        "day" in asked and "day" not in _times_named(read.text) and not _EVERY_DAY.search(read.text)
    )


_EVERY_DAY = re.compile(r"\b(?:every day|daily|(?:7|seven) days a week|all week|24/7)\b", re.I)


def _times_named(text: str) -> dict[str, frozenset[str]]:
    """The days, seasons, months and years the text names, by kind, each word as what it
    covers ("weekdays" -> Monday to Friday) and each range whole ("Tuesday to Saturday",
    "1974-79")."""
    named: dict[str, set[str]] = {}
    for match in _YEARS.finditer(text):
        start = int(match.group("first"))
        stop = start + 9 if match.group("decade") else start
        if end := match.group("last"):  # "1974-79" ends in 1979
            stop = int(end) if len(end) == 4 else start // 100 * 100 + int(end)
        years = range(start, stop + 1) if 0 <= stop - start <= _LONGEST_YEARS else (start, stop)
        named.setdefault("year", set()).update(str(y) for y in years)
    for pattern in (_DAY_OR_SEASON, _MONTH):
        for match in pattern.finditer(text):
            first, last = match.group("first").lower(), (match.group("last") or "").lower()
            kind = next(k for k, covers in _COVERS.items() if first in covers)
            order = _ORDER.get(kind, ())
            if first in order and last in order:  # a range of days or months
                a, b = order.index(first), order.index(last)
                span = order[a : b + 1] if a <= b else order[a:] + order[: b + 1]
                named.setdefault(kind, set()).update(span)
                continue
            named.setdefault(kind, set()).update(_COVERS[kind][first])
            named[kind].update(_COVERS[kind].get(last, ()))
    return {kind: frozenset(words) for kind, words in named.items()}


_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
           "september", "october", "november", "december")  # fmt: skip
_ORDER = {"day": _DAYS, "month": _MONTHS}
_COVERS: dict[str, dict[str, tuple[str, ...]]] = {
    "day": {**{d: (d,) for d in _DAYS}, "weekday": _DAYS[:5], "weekend": _DAYS[5:]},
    # "fall" is left out: it is far more often a verb.
    "season": {w: (w,) for w in ("spring", "summer", "autumn", "winter")},
    "month": {m: (m,) for m in _MONTHS},
}


# A year, a decade ("the 1970s") or a span of years ("from 1974 to 1979", "1974-79").
_YEARS = re.compile(
    r"\b(?P<first>1\d{3}|20\d{2})(?P<decade>s)?\b"
    r"(?:\s*(?:-|–|to|through|until|till)\s*(?P<last>1\d{3}|20\d{2}|\d{2})\b)?"
)
_LONGEST_YEARS = 200  # a longer "span" is two separate years


def _range_of(words: str, flags: int) -> re.Pattern[str]:
    return re.compile(
        rf"\b(?P<first>{words})s?\b(?:\s*(?:to|through|until|till|-|–)\s*(?P<last>{words})s?\b)?",
        flags,
    )


_DAY_OR_SEASON = _range_of("|".join([*_COVERS["day"], *_COVERS["season"]]), re.IGNORECASE)
# Months only capitalised: "march" and "may" are verbs too.
_MONTH = _range_of("|".join(m.capitalize() for m in _MONTHS), 0)


def _about_with_lead(
    plan: QueryPlan,
    sentences: tuple[DraftSentence, ...],
    reads: list[_Read],
    shares: list[float | None],
    i: int,
) -> bool:
    """Sentence i names part of what is asked and the quoted sentences before it in its
    paragraph name the rest, but for one word at most: "More than 26,000 square kilometres of
    Victorian farmland are sown for grain. [...] A further 6,000 square kilometres is sown for
    hay." answers how much of the farmland grows hay, though neither sentence names both. Not
    a yes or no, which any "is" or "not" holds: "Glass bottles are not allowed" after a
    sentence on the main pool says nothing of wetsuits in it."""
    kind = plan.answer_type
    if not shares[i] or kind is None or kind.name == "yes_no":
        return False
    first = i
    while first > 0 and _same_paragraph(sentences[first - 1], sentences[i]):
        first -= 1
    if first == i:
        return False
    joined = _joined(reads[first : i + 1])
    counts = _named_counts(joined, plan)
    if counts is None or counts[1] - counts[0] > 1:
        return False
    return _about(joined, counts[0] / counts[1], plan)


def _joined(reads: Sequence[_Read]) -> _Read:
    """The last of `reads` read together with the sentences before it (of its paragraph)."""
    last = reads[-1]
    return msgspec.structs.replace(last, text=" ".join(r.text for r in reads),
                                   words=set().union(*(r.words for r in reads)))  # fmt: skip


def _referred(sentences: tuple[DraftSentence, ...], i: int) -> str:
    """The sentence before sentence i in its paragraph, when sentence i opens by pointing back
    to what that one names ("Night routes N1 and N5 run on Friday and Saturday nights. Both
    leave from stand J ..."); "" otherwise."""
    first = re.match(r"\W*(\w+)", sentences[i].text)
    if not (first and first.group(1).lower() in _OPENING_ANAPHORS and _continues(sentences, i)):
        return ""
    return sentences[i - 1].text


_OPENING_ANAPHORS = frozenset(re.findall(r"\w+", "both they it its these this each either"))


def _continues(sentences: tuple[DraftSentence, ...], i: int) -> bool:
    """Sentence i goes on in the paragraph of the sentence before it, so its value may be
    about what that one names ("The X200 has a warranty. It lasts two years.")."""
    return i > 0 and _same_paragraph(sentences[i - 1], sentences[i])


def stands_for_subject(plan: QueryPlan, draft: Draft, i: int) -> bool:
    """Sentence i, sought out for its value (asked_value.py), is about what the question asks:
    it names it, or opens by referring back to the sentence it continues ("This service is run
    by Marta Kowalczyk"), and no quoted sentence without a value names it better. One the
    composer chose may also lean on the sentence before it; one sought out may not: "The Nook
    (Room 2.11) seats 3 people" continues a paragraph about the Harbour room, and "Fixed desk
    members get 200 pages of printing" one about lockers for hot desk members."""
    kind = plan.answer_type
    sentences = draft.sentences
    refers = _continues(sentences, i) and _REFERS_BACK.match(sentences[i].text) is not None
    quoted, reads, shares = _readings(plan, sentences, {})
    if kind is None or not (refers or _about(reads[i], shares[i], plan)):
        return False
    whole = _whole_shares(plan, reads, quoted)
    return not _better_named_without_value(i, sentences, whole, kind, quoted, leans=False)


_REFERS_BACK = re.compile(
    r"\W*(?:it|its|this|that|these|those|they|their|he|she|his|her|such|here|there|each|both|"
    r"either|neither)\b",
    re.IGNORECASE,
)


def _same_paragraph(a: DraftSentence, b: DraftSentence) -> bool:
    """b continues a's paragraph ("The X200 has a two-year warranty. It covers ..."): its
    value may be about what a names."""
    return bool({e.paragraph_id for e in a.evidence} & {e.paragraph_id for e in b.evidence})


def _title_of(sentence: DraftSentence) -> str:
    return next((e.heading_path[0] for e in sentence.evidence if e.heading_path), "")


def _names_identifiers(
    read: _Read, asked: set[tuple[str, str]], question: str, referred: str = ""
) -> bool:
    """An identifier the question asks about ("Harbour 6.0", "version 2 of the API") must be
    named by the sentence that holds the value, or by its page's title, when the sentence
    names a sibling of it or its page names it elsewhere: the release date of 5.8.2 answers
    nothing about 6.0, nor does the release schedule on a page that speaks of 6.0 in another
    sentence. A sentence of a page that never names it ("the printer prints 24 pages a
    minute", in the LP-540's manual) is not contradicted. On a page that names no sibling of
    it, neither is a table row ("Wool: 55 min" on the WM-8's programmes page: a row leaves its
    product to the table's lead) nor a sentence that names another identifier the question
    asks about, and no sibling of that one ("The current main firmware is version 1.6.2,
    released on 12 February 2025" on the D20's page, for when the D20's 1.6.2 came out). Other
    prose that does not name it is often about another thing ("Firmware 1.4.7 added a night
    mode" for the next update's version). `referred`: the sentence this one points back to
    (_referred), whose identifiers it names too."""
    if not asked:
        return True
    sentence = read.sentence
    named = identifiers(f"{referred} {sentence.text}") | identifiers(read.title)
    page = identifiers(read.page)
    row = any(e.kind == "table" for e in sentence.evidence)
    # The sentence speaks of the asked thing by a more precise name (the version, not the
    # product): one identifier the question asks about, named with no sibling.
    precise = [j for j in asked if _named_alone(j, named, question, sentence.text)]

    def elsewhere(i: tuple[str, str]) -> bool:
        sibling = any(j[0] == i[0] and j != i for j in page)
        return i in page and (sibling or not (row or any(j != i for j in precise)))

    return all(
        i in named or not (elsewhere(i) or any(kind == i[0] for kind, _ in named)) for i in asked
    )


def _names_asked_names(read: _Read, referred: str, question: str) -> bool:
    """A name the question asks about ("Who is the club manager at Ironleaf Northside?") must be
    named by the sentence that holds the value (with its headings and its page's title, or the
    sentence it points back to) when its page lists that name beside another of its kind ("two
    clubs: Riverside, at 12 Mill Street, and Northside"): "Membership questions at Riverside
    are handled by the club manager, Chloe Brandt" names no manager of Northside. A name its
    page lists beside no other (the maker's, the product's) need not be repeated."""
    said = " ".join((read.text, read.title, referred))
    return not any(
        _has_sibling(name, read.page, question)
        for name in _asked_names(question) if not re.search(rf"\b{name}\b", said)
    )  # fmt: skip


def _of_another_name(text: str, question: str) -> bool:
    """The sentence gives a thing the question asks of by another name: "The Northside branch
    is open Tuesday to Saturday" says nothing of "the westpark branch". The thing is a word in
    lower case after a name of the question (a capitalised word inside it, or a word the
    embedding model's English word list lacks: "westpark"); the sentence names it after a
    capitalised name the question does not hold, and leaves out the question's name."""
    words = re.findall(r"[\w'’-]+", question)
    asked = {w.lower() for w in words}
    said = {w.lower() for w in re.findall(r"[\w'’-]+", text)}
    for at, (before, thing) in enumerate(itertools.pairwise(words)):
        named = (before[0].isupper() and at > 0) or before.lower() not in english_words()
        if not named or not thing.islower() or function_word(thing) or before.lower() in said:
            continue  # "Leith Street office": "Street" is the name's, "Rowan Street" no sibling
        pattern = rf"(?<=\s)([A-Z][a-z]{{2,}})\s+(?i:{re.escape(thing)})s?\b"
        if any(m.group(1).lower() not in asked for m in re.finditer(pattern, text)):
            return True
    return False


def _has_sibling(name: str, page: str, question: str) -> bool:
    """`page` lists `name` beside a name the question does not hold (_LISTED)."""
    asked = set(re.findall(r"\w+", question))
    listed = [pair for m in _LISTED.finditer(page) if name in (pair := m.groups())]
    return any(other not in asked for pair in listed for other in pair)


def _subject_names(read: _Read, question: str) -> set[str]:
    """The names the question asks about that the sentence does not repeat but its page opens
    with and lists beside no other: its subject, like its title ("Hartley & Sons delivers fresh
    every morning" opens the bakery's delivery page, whose "There are no deliveries on Sundays"
    speaks of them). A name met further down ("A smaller travel centre at Northgate
    Interchange", or "The Glass programme" after "The DW450 has six programmes.") is one
    subject of the page among others."""
    first = read.page.split("\n", 1)[0]  # the page's first paragraph (runner._pages)
    opening = next((s.text for s in split_sentences(first)), "")
    return {
        name.lower() for name in _asked_names(question)
        if not re.search(rf"\b{name}\b", read.text) and re.search(rf"\b{name}\b", opening)
        and not _has_sibling(name, read.page, question)
    }  # fmt: skip


def _asked_names(question: str) -> set[str]:
    """The capitalised words inside a question ("Northside", "Solvane"), but a day or a month."""
    return {
        m.group(0) for m in _INNER_CAPITAL.finditer(question)
        if not function_word(word := m.group(0).lower())
        and word.removesuffix("s") not in (*_DAYS, *_MONTHS)
    }  # fmt: skip


_INNER_CAPITAL = re.compile(r"(?<![.!?]\s)(?<!^)(?<![-–—]\s)\b[A-Z][a-z]{2,}\b")
# Two names joined as siblings: "Riverside and Northside", "Riverside, at 12 Mill Street, and
# Northside", "Eastfield or Ashby". The lookahead lets one name pair with the next as well.
_LISTED = re.compile(
    r"\b([A-Z][a-z]{2,})\b(?=(?:,[^.;:!?]{0,40}?,)?\s+(?:and|or|&)\s+([A-Z][a-z]{2,})\b)"
)


def _named_alone(
    identifier: tuple[str, str], named: set[tuple[str, str]], question: str, text: str
) -> bool:
    """`text` names the identifier and no sibling of it: no other identifier of its kind and,
    when the question gives it a unit ("the 2.4 GHz band"), no other number with that unit
    ("The 5 GHz band reaches up to 2,402 Mbps; the 2.4 GHz band is slower")."""
    kind, value = identifier
    if identifier not in named or any(j[0] == kind and j != identifier for j in named):
        return False
    after = re.search(rf"(?<![\w.]){re.escape(value)}\s*([^\W\d_]+)", question, re.I)
    unit = after.group(1) if after else ""
    # A unit by name ("mm") or by symbol ("GHz", "mAh", "W"), not the next word ("released").
    if not (unit_word(unit) or (0 < len(unit) <= _SYMBOL_LETTERS and not unit.islower())):
        return True
    numbers = re.findall(rf"(?<![\w.])(\d+(?:\.\d+)*)\s*{re.escape(unit)}\b", text, re.I)
    return all(n == value for n in numbers)


_SYMBOL_LETTERS = 4  # a unit's symbol is short and capitalised somewhere: GHz, mAh, W, Mbps


def _page(sentence: DraftSentence, pages: Mapping[str, str]) -> str:
    """The whole text of the sentence's page, with its headings ("" when not read)."""
    page = next((pages[e.paragraph_id] for e in sentence.evidence if e.paragraph_id in pages), "")
    return " ".join((page, *(h for e in sentence.evidence for h in e.heading_path)))


# Nouns that name the asked type ("what time", "which version", "the warranty period"): the
# value stands for them, a sentence need not repeat them.
_TYPE_NOUNS = frozenset(
    re.findall(
        r"\w+",
        "time times date dates day days year years month months hour hours version versions "
        "release period duration frequency number amount value name place location size length "
        "weight price cost costs",
    )
)
# Words that ask of an exception: a sentence without them states the rule, not the exception
# ("without Wi-Fi"). A time ("after summer switch-off") is not one: "Hot water heating continues
# all year" answers it.
_CONDITIONS = frozenset(["without", "unless", "except", "only"])
# Words that frame a request, not what it asks about ("is it possible to extend the loan", "I
# want to make a claim").
_FRAMES = frozenset(["possible", "able", "want", "wants", "wish", "like", "please", "exactly"])
# Phrases that say how a question asks, not what about ("show me", "who was supposed to be in",
# "where would you expect to find"), and how a place question asks for its place ("where is
# Yemen located", "where is the North Pole on a world map", "located in India map", "where can
# I find the dub"). A sentence need not repeat their words, but one that does ("located in the
# constellation of ...") names the question better. "Where did they find the heart of the
# ocean" asks of a finding, and "the show" of a show.
_ASKING = re.compile(
    r"\bshow (?:me|us)\b|\b(?:supposed|meant|expected) to\b|\bexpect to find\b", re.IGNORECASE
)
_ASKING_A_PLACE = re.compile(
    r"\b(?:located|situated|lies?)\b|\b(?:on|in) (?:a |the )?(?:[a-z]+ )?map\b|"
    r"\bwhere (?:can|could|do|would|should|might) (?:i|you|we|one)\b(?: \w+){0,2}? find\b",
    re.IGNORECASE,
)
# Of those phrases, the words a sentence need not repeat ("India" in "located in India map" is
# still asked).
_ASKING_WORDS = frozenset(
    re.findall(
        r"\w+", "show supposed meant expected expect located situated lie lies map world find"
    )
)
_ALTERNATIVES = re.compile(r"\b([a-z][\w-]*) or (?:the |a |an )?([a-z][\w-]*)\b")
# How long something lasts, or is kept ("how long can I keep a Blu-ray"), is its duration.
_LASTING = frozenset(["last", "lasts", "lasting", "keep", "keeps", "kept"])
_PERMISSION = frozenset(["allowed", "permitted"])  # "am I allowed to" asks a yes or a no
_TIME_ENDS = frozenset(
    re.findall(
        r"\w+",
        "start starts begin begins open opens stop stops end ends finish finishes "
        "close closes shut shuts",
    )
)
# How a person question reaches its person ("who do I talk to about ...", "who should I tell",
# "who do I deal with"): the subject is what the talk is about.
_ADDRESSING = frozenset(
    re.findall(
        r"\w+",
        "talk speak tell ask contact reach call email write deal let know inform notify report "
        "send turn",
    )
)
# Prepositions, particles and quantifiers: grammar, not a part of what is asked ("switch over",
# "every year").
_GRAMMAR = frozenset(
    re.findall(
        r"\w+",
        "after before during until since under over above below into onto within without "
        "through across per via against along among around every each any some all both "
        "still already also just only even again away back up down out off now ever yet ago",
    )
)


def missing_value_caveat(typed: TypedValue) -> DraftSentence:
    return DraftSentence(
        text=f"The sources found do not state the {typed.noun} asked for.",
        kind="caveat",
        slot="missing_value",
    )
