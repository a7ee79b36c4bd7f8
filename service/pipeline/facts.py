"""Comparable facts: what one sentence states about a subject, typed, with its conditions.

Pure and deterministic. `extract_facts` reads every sentence of the passages it is given (whole
documents, in reading order) and returns two families of facts:

- Attribute facts: "<subject> is/are/was <value>" (also "is located in", "is owned by"), where
  the subject's head word names the fact class and the value must have that class's shape:
  measurement (number + unit, tolerances such as ±0.10 mm), date, state/status, location,
  unitless quantity, ownership identity, endpoint (path or URL; a /v1/ inside it is value text),
  dependency, format, protocol, semantic version, service port and response status code.
  The subject key is the class plus the normalised subject with its attribute head.
- Aligned facts, for open prose: a value token run (a number, a date, a capitalised name; it
  stops at a sentence end) with `aligned_context_tokens` words on each side. Two such facts are
  comparable only when their surroundings agree for a long stretch (conflicts.py checks that per
  pair), which is how one statement copied or edited between sources looks; a shared template
  about different entities breaks early, at the entity's own figures. Tokens compare without
  layout (case, thousands separators, currency and percent signs).

Qualifiers put a fact into a condition scope: temporal (historical, planned; "current" is the
default scope), environment (staging, production, development, qa, uat, sandbox, preview,
canary, in environment/deployment phrasing), version ("version 2.0", "v2", never inside a path)
and platform (Windows, macOS, Linux, Android, iOS, web, desktop, mobile, in platform phrasing).
Facts are comparable only within one scope, so qualified facts never contradict each other.

Only assertions are facts. A statement inside a condition clause ("When emergency mode is
turned off, the device returns to standard mode") names the condition of the rest of its
sentence: it is no fact, and it puts the attribute facts it governs into a `condition` scope
keyed by its subordinator class and normalised words ("if emergency mode disabled"), so two
sources stating different values under one condition still disagree. Values offered as options
("the mode is on or off") are no fact. In an instruction ("From Settings, tap Fingerprints")
names are the labels to act on, which two procedures of one manual differ in by design: they
give no aligned facts (an instruction's figures still do).
"""

from __future__ import annotations

import bisect
import functools
import re
import sys
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import overload

import msgspec

from service.pipeline.analysis import (
    ANALYSIS_VERSION,
    FactKind,
    Scope,
    StoredFact,
    TextAnalysis,
    decode_analysis,
    encode_analysis,
    pack_offsets,
)
from service.pipeline.spans import split_sentences
from service.pipeline.text_cache import TEXT_CACHE_PARAGRAPHS

__all__ = [
    "ConditionClause",
    "DocumentProfile",
    "DocumentProfiles",
    "DocumentWords",
    "Fact",
    "FactHead",
    "FactKind",
    "FactSettings",
    "ParagraphTokens",
    "Passage",
    "Scope",
    "WordToken",
    "bind_facts",
    "condition_clauses",
    "condition_scope",
    "document_profiles",
    "document_vocabularies",
    "document_words",
    "edit_fact",
    "extract_facts",
    "fact_heads",
    "frame_halves",
    "is_anchor_token",
    "is_instruction",
    "month_words",
    "norm_token",
    "normalise_value",
    "paragraph_analysis",
    "qualifiers",
    "sentence_facts",
]


class FactSettings(msgspec.Struct, frozen=True, kw_only=True):
    """Limits of fact extraction; each bounds work on one question's documents."""

    max_facts_per_document: int = 400  # attribute and aligned facts kept per document
    max_sentence_chars: int = 1200  # longer units (tables, run-on lists) are not read for facts
    aligned_context_tokens: int = 3  # words each side of an aligned fact's value (its frame)
    max_value_tokens: int = 5  # longest value token run of an aligned fact


class Passage(msgspec.Struct, frozen=True, kw_only=True):
    """One paragraph of a selected document, as read from the graph."""

    document_id: str
    path: str
    paragraph_id: str
    text: str
    start_offset: int  # of the paragraph in the source file
    start_line: int
    kind: str = "paragraph"
    analysis: bytes = b""  # the paragraph's stored TextAnalysis (analysis.py), if any


class ParagraphTokens:
    """A paragraph's tokens (citation marks left out): their normalised forms, which the scan
    compares, and the forms as written, cut from the text only when read (`tokens[i]`,
    `tokens[lo:hi]`). A question's aligned facts sit in some 70 paragraphs of 60 tokens; cutting
    all of them up front cost more than the comparisons that read a few dozen."""

    __slots__ = ("_offsets", "_text", "norms")

    def __init__(self, norms: Sequence[str], text: str, offsets: Sequence[int]) -> None:
        self.norms = norms  # norm_token of each token as written
        self._text = text
        self._offsets = offsets  # start, end of each token in the text

    def __len__(self) -> int:
        return len(self.norms)

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[str, ...]: ...
    def __getitem__(self, index: int | slice) -> str | tuple[str, ...]:
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(len(self.norms))))
        if index < 0:
            index += len(self.norms)
        if not 0 <= index < len(self.norms):
            raise IndexError(index)
        return self._text[self._offsets[2 * index] : self._offsets[2 * index + 1]]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ParagraphTokens):
            return NotImplemented
        return (tuple(self.norms) == tuple(other.norms) and self._text == other._text
                and list(self._offsets) == list(other._offsets))  # fmt: skip

    def __hash__(self) -> int:
        return hash(self._text)

    def __repr__(self) -> str:
        return f"ParagraphTokens({self[:]!r})"


NO_TOKENS = ParagraphTokens((), "", ())


class Fact(msgspec.Struct, frozen=True, kw_only=True):
    kind: FactKind
    subject: str  # normalised subject with its attribute, e.g. "calibration tolerance"
    key: str  # subject key: kind + subject (aligned: kind + the frame around the value)
    value: str  # as written
    norm: str  # normalised value: equal norms state the same thing
    scope: Scope
    document_id: str
    path: str
    paragraph_id: str
    sentence_start: int  # offsets of the sentence inside the paragraph text
    sentence_end: int
    sentence: str
    value_start: int  # offsets of the value inside the paragraph text
    value_end: int
    start_offset: int  # of the sentence in the source file
    line: int  # 1-based line of the sentence in the source file
    order: int  # reading order of the fact among all extracted facts
    tokens: ParagraphTokens = NO_TOKENS  # aligned: the paragraph's tokens
    token_start: int = 0  # aligned: the value's token range in `tokens`
    token_end: int = 0


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


# --- qualifiers ------------------------------------------------------------------------------

_ENVIRONMENTS = {
    "staging": "staging", "stage": "staging", "production": "production", "prod": "production",
    "development": "development", "dev": "development", "qa": "qa", "uat": "uat",
    "sandbox": "sandbox", "preview": "preview", "canary": "canary",
}  # fmt: skip
_ENV_WORD = "|".join(sorted(_ENVIRONMENTS, key=len, reverse=True))
_ENV_NOUN = r"(?:environment|env|deployment|cluster|tier|stage|instance|server|system)s?"
# Environment words count only in environment/deployment phrasing ("in the staging environment",
# "staging deployment", "in production"): "went into production" stays prose.
_ENVIRONMENT = re.compile(
    rf"\b(?:in|on|for|within|under)\s+(?:the\s+|a\s+|our\s+)?(?P<a>{_ENV_WORD})\b(?!-)"
    rf"|\b(?P<b>{_ENV_WORD})\s+{_ENV_NOUN}\b",
    re.IGNORECASE,
)
_GOES_INTO = re.compile(r"\b(?:into|went|go|goes|going|entered|began|started)\s+production\b", re.I)
_PLATFORMS = {
    "windows": "windows", "macos": "macos", "mac os": "macos", "os x": "macos",
    "linux": "linux", "android": "android", "ios": "ios", "web": "web", "desktop": "desktop",
    "mobile": "mobile",
}  # fmt: skip
_PLATFORM_WORD = r"Windows|macOS|Mac\s?OS|OS X|Linux|Android|iOS|[Ww]eb|[Dd]esktop|[Mm]obile"
_PLATFORM_NOUN = r"(?:platform|devices?|clients?|apps?|application|builds?|targets?|hosts?)"
# "Windows" only capitalised ("time windows" is not a platform); web/desktop/mobile only with a
# platform noun or "on the web"-style phrasing.
_PLATFORM = re.compile(
    rf"\b(?i:on|for|under)\s+(?i:the\s+)?(?P<a>Windows|macOS|Mac\s?OS|OS X|Linux|Android|iOS)\b"
    rf"|\b(?i:on|for)\s+(?i:the\s+)?(?P<c>[Ww]eb|[Dd]esktop|[Mm]obile)\b"
    rf"|\b(?P<b>{_PLATFORM_WORD})\s+{_PLATFORM_NOUN}\b"
)
# "version 2.0" / "v2" as a condition; never a path segment (/api/v1/hooks) or a dotted name.
_VERSION = re.compile(
    r"\b(?:version|release|rel\.)\s+v?(?P<a>\d+(?:\.\d+){0,3})\b"
    r"|(?<![\w/.\-])v(?P<b>\d+(?:\.\d+){0,3})(?![\w/\-])",
    re.IGNORECASE,
)
_HISTORICAL = re.compile(
    r"\b(?:historic(?:al)?(?:ly)?|previous(?:ly)?|former(?:ly)?|earlier|originally|"
    r"in the past|used to|prior to|no longer|legacy|old|deprecated)\b",
    re.IGNORECASE,
)
_PLANNED = re.compile(
    r"\b(?:planned|scheduled|future|upcoming|proposed|will be|is to be|next|intended|"
    r"anticipated|targeted)\b",
    re.IGNORECASE,
)


def qualifiers(text: str, *, skip: Sequence[tuple[int, int]] = ()) -> Scope:
    """The condition scope a sentence states, ignoring the character ranges in `skip` (the
    fact's own value: "The runtime version is 1.2.0" is a value, not a version scope)."""

    def free(match: re.Match[str]) -> bool:
        return not any(match.start() < hi and lo < match.end() for lo, hi in skip)

    found: set[tuple[str, str]] = set()
    if any(free(m) for m in _HISTORICAL.finditer(text)):
        found.add(("temporal", "historical"))
    if any(free(m) for m in _PLANNED.finditer(text)):
        found.add(("temporal", "planned"))
    for m in _ENVIRONMENT.finditer(text):
        word = (m.group("a") or m.group("b") or "").lower()
        if free(m) and not (word == "production" and _GOES_INTO.search(text)):
            found.add(("environment", _ENVIRONMENTS[word]))
    for m in _PLATFORM.finditer(text):
        word = " ".join((m.group("a") or m.group("b") or m.group("c") or "").lower().split())
        if free(m):
            found.add(("platform", _PLATFORMS.get(word, word)))
    for m in _VERSION.finditer(text):
        if free(m):
            found.add(("version", _version_norm(m.group("a") or m.group("b") or "")))
    return tuple(sorted(found))


def _version_norm(text: str) -> str:
    parts = text.lower().lstrip("v").split(".")
    while len(parts) > 1 and parts[-1] == "0":
        parts.pop()  # version 2 == version 2.0 == v2.0.0
    return ".".join(parts)


# --- attribute facts -------------------------------------------------------------------------

# Attribute head words (the subject's last one or two words) and the fact class they name.
# Two-word heads are tried first: "response status code" is a status code, not a state.
_HEADS_2: dict[str, FactKind] = {
    "status code": "status_code", "response code": "status_code", "http status": "status_code",
    "return code": "status_code", "exit code": "status_code", "content type": "format",
    "mime type": "format", "media type": "format", "file type": "format",
    "release date": "date", "base url": "endpoint",
}  # fmt: skip
_HEADS: dict[str, FactKind] = {
    **dict.fromkeys(
        _words(
            "tolerance diameter length width height depth thickness force pressure temperature "
            "weight mass voltage torque distance clearance gap radius speed latency timeout "
            "duration interval frequency resolution accuracy"
        ),
        "measurement",
    ),
    **dict.fromkeys(_words("date deadline"), "date"),
    **dict.fromkeys(_words("status state mode"), "state"),
    **dict.fromkeys(
        _words(
            "location site region zone room rack slot bay building floor datacenter cabinet "
            "shelf placement"
        ),
        "location",
    ),
    **dict.fromkeys(
        _words(
            "count limit threshold budget quota capacity size window attempts retries maximum "
            "minimum replicas concurrency"
        ),
        "quantity",
    ),
    **dict.fromkeys(_words("owner maintainer steward custodian approver assignee"), "owner"),
    **dict.fromkeys(_words("endpoint url uri route"), "endpoint"),
    **dict.fromkeys(
        _words(
            "dependency package provider driver runtime library module plugin adapter backend "
            "database engine framework"
        ),
        "dependency",
    ),
    **dict.fromkeys(_words("format schema encoding serialization serialisation"), "format"),
    **dict.fromkeys(_words("protocol"), "protocol"),
    **dict.fromkeys(_words("version revision"), "version"),
    **dict.fromkeys(_words("port"), "port"),
}

_COPULA = re.compile(
    r"\s+(?P<verb>is|are|was|were|remains|remain|has been|have been|will be|stays)\s+"
    r"(?P<adverb>(?:currently|now|still|presently|today|also|set to|always)\s+)*",
    re.IGNORECASE,
)
_LOCATED = re.compile(
    r"\s+(?:is|are|was|were)\s+(?:currently\s+|now\s+|still\s+)?"
    r"(?:located|installed|mounted|hosted|housed|placed|kept|stored|deployed|sited)\s+"
    r"(?:in|at|on|inside)\s+(?:the\s+)?",
    re.IGNORECASE,
)
_OWNED = re.compile(
    r"\s+(?:is|are|was|were)\s+(?:currently\s+|now\s+|still\s+)?"
    r"(?:owned|maintained|operated|run|managed)\s+by\s+(?:the\s+)?",
    re.IGNORECASE,
)
_SUBJECT_WORD = re.compile(r"[A-Za-z][\w\-/]*$")
# Words that end a subject when read backwards from the verb: clauses, not noun phrases.
_SUBJECT_STOPS = frozenset(
    _words(
        "that which who whom whose when while if because and or but so then where whether "
        "although though since unless until after before once as than is are was were be been"
    )
)
_QUANTIFIERS = frozenset(_words("no one some any many most all several few both either neither"))
_DETERMINERS = frozenset(_words("the a an its their our this that these those each every"))
_QUALIFIER_WORDS = frozenset(
    _words(
        "current currently historical historically previous previously former formerly original "
        "originally planned scheduled future upcoming proposed new old legacy next"
    )
    + tuple(_ENVIRONMENTS)
)
_UNITS = (
    r"mm|cm|km|µm|um|nm|m|inch(?:es)?|ft|feet|mi|miles?|N|kN|Nm|N·m|Pa|kPa|MPa|GPa|bar|mbar|"
    r"psi|°C|°F|℃|K|V|mV|kV|A|mA|W|kW|MW|Wh|kWh|Hz|kHz|MHz|GHz|ms|µs|us|ns|s|sec|secs|"
    r"seconds?|minutes?|min|mins|hours?|h|hrs?|days?|weeks?|months?|years?|kg|g|mg|t|lb|lbs|"
    r"oz|%|percent|B|KB|MB|GB|TB|KiB|MiB|GiB|TiB|bps|kbps|Mbps|Gbps|rpm|dB|L|ml|mL|l"
)
_NUMBER = r"[-−]?\d[\d,]*(?:\.\d+)?"
_TOLERANCE = r"(?:±|\+/-|\+-|\+/−)\s*"
_MEASUREMENT = re.compile(
    rf"(?P<v>(?:{_TOLERANCE})?{_NUMBER}(?:\s*(?:-|–|to)\s*{_NUMBER})?\s*(?:{_UNITS}))(?![\w])"
)
_MONTHS = (
    "january|february|march|april|may|june|july|august|september|october|november|december|"
    "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
)
_DATE = re.compile(
    rf"(?P<v>\d{{4}}-\d{{2}}-\d{{2}}|\d{{1,2}}/\d{{1,2}}/\d{{4}}|"
    rf"(?:{_MONTHS})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}|"
    rf"\d{{1,2}}(?:st|nd|rd|th)?\s+(?:{_MONTHS})\.?,?\s+\d{{4}}|"
    rf"(?:{_MONTHS})\.?\s+\d{{4}}|(?:Q[1-4]\s+)?\d{{4}})(?![\w-])",
    re.IGNORECASE,
)
_STATES = {
    "enabled": "enabled", "on": "enabled", "active": "enabled", "activated": "enabled",
    "turned on": "enabled", "switched on": "enabled", "disabled": "disabled", "off": "disabled",
    "inactive": "disabled", "deactivated": "disabled", "turned off": "disabled",
    "switched off": "disabled", "online": "online", "offline": "offline",
    "available": "available", "unavailable": "unavailable", "supported": "supported",
    "unsupported": "unsupported", "required": "required", "optional": "optional",
    "open": "open", "closed": "closed", "locked": "locked", "unlocked": "unlocked",
    "running": "running", "stopped": "stopped", "paused": "paused", "suspended": "suspended",
    "approved": "approved", "rejected": "rejected", "pending": "pending", "blocked": "blocked",
    "allowed": "allowed", "mandatory": "required", "read-only": "read-only",
    "read-write": "read-write", "healthy": "healthy", "unhealthy": "unhealthy",
    "degraded": "degraded",
}  # fmt: skip
_STATE = re.compile(
    r"(?P<v>" + "|".join(sorted(map(re.escape, _STATES), key=len, reverse=True)) + r")(?![\w-])",
    re.IGNORECASE,
)
_QUANTITY = re.compile(rf"(?P<v>{_NUMBER})(?![\w.]*\d)(?![\w])")
_NAME = re.compile(
    r"(?P<v>(?:[A-Z0-9][\w&.'’\-]*|[a-z][\w\-]*\d[\w\-]*)"
    r"(?:\s+(?:of\s+|for\s+|and\s+|&\s+)?(?:[A-Z0-9][\w&.'’\-]*)){0,4})"
)
_EMAIL_OR_HANDLE = re.compile(r"(?P<v>[\w.+-]+@[\w-]+(?:\.[\w-]+)+|@[\w-]+)")
_ENDPOINT = re.compile(r"(?P<v>(?:[a-z][a-z0-9+.-]*://[^\s\"'<>`]+|/[\w\-./{}:%~]+))")
_IDENTIFIER = re.compile(r"(?P<v>[A-Za-z][\w.+#\-/]*(?:\s+[A-Z0-9][\w.+#\-/]*){0,2})")
_PROTOCOL = re.compile(r"(?P<v>[A-Za-z][\w.+\-]*(?:/\d(?:\.\d)?)?)")
_SEMVER = re.compile(r"(?P<v>v?\d+(?:\.\d+){1,3}(?:[-+][\w.]+)?|v\d+)(?![\w.]*\w)")
_PORT = re.compile(r"(?P<v>\d{1,5})(?![\w.,]*\d)")
_STATUS_CODE = re.compile(r"(?P<v>[1-5]\d\d)(?![\w.,]*\d)")
# Values these classes never take: pronouns and articles after the copula are prose.
_NOT_VALUES = frozenset(
    _words(
        "the a an it this that these those there here not never no none one also used being "
        "based known called given set"
    )
)

_VALUE_PATTERNS: dict[FactKind, tuple[re.Pattern[str], ...]] = {
    "measurement": (_MEASUREMENT,),
    "date": (_DATE,),
    "state": (_STATE,),
    "location": (_NAME,),
    "quantity": (_QUANTITY,),
    "owner": (_EMAIL_OR_HANDLE, _NAME),
    "endpoint": (_ENDPOINT,),
    "dependency": (_IDENTIFIER,),
    "format": (_IDENTIFIER,),
    "protocol": (_PROTOCOL,),
    "version": (_SEMVER,),
    "port": (_PORT,),
    "status_code": (_STATUS_CODE,),
}


# --- condition clauses -------------------------------------------------------------------------

# Subordinators that open a condition clause, and the word its scope is keyed by: when, if,
# once, while, whenever all say "while this holds"; unless negates it; before, after and
# until place the statement in time.
_CONDITION_WORD = re.compile(
    r"\b(?P<w>whenever|when|if|once|while|unless|until|after|before|as long as|in case|"
    r"provided(?:\s+that)?)\b",
    re.IGNORECASE,
)
_CONDITION_KEYS = {
    "whenever": "if", "when": "if", "if": "if", "once": "if", "while": "if", "as long as": "if",
    "in case": "if", "provided": "if", "provided that": "if", "unless": "unless",
    "until": "until", "after": "after", "before": "before",
}  # fmt: skip
# Where a condition clause ends: a comma (or other clause punctuation), a dash, "then".
_CLAUSE_END = re.compile(r"[,;:()]|\s[-–—]\s|\bthen\b", re.IGNORECASE)
# ", while ..." contrasts two statements ("the limit is 3, while the quota is 5").
_CONTRAST = re.compile(r",\s*$")
_CONDITION_FILLER = frozenset(
    _words("the a an its their our this that these those your is are was were be been being")
)


class ConditionClause(msgspec.Struct, frozen=True):
    """A clause stating a condition, as offsets in its sentence, and its scope key."""

    start: int
    end: int
    key: str  # "if emergency mode enabled": subordinator class and normalised words


def condition_clauses(sentence: str) -> list[ConditionClause]:
    """The condition clauses of a sentence: "When emergency mode is turned off, ...", "... if
    the queue is full". A clause runs from its subordinator to the next comma, semicolon,
    colon, dash or "then"; without one, to the end of its own statement's complement when a
    second statement follows ("When the queue is full the retry limit is 3")."""
    clauses: list[ConditionClause] = []
    for match in _CONDITION_WORD.finditer(sentence):
        if clauses and match.start() < clauses[-1].end:
            continue  # inside the previous condition ("when ... or if ...")
        word = " ".join(match.group("w").lower().split())
        if word == "while" and _CONTRAST.search(sentence, 0, match.start()):
            continue
        boundary = _CLAUSE_END.search(sentence, match.end())
        end = boundary.start() if boundary else len(sentence)
        verbs = list(_COPULA.finditer(sentence, match.end(), end))
        if len(verbs) > 1:
            state = _STATE.match(sentence, verbs[0].end())
            word_end = re.compile(r"\S+").match(sentence, verbs[0].end())
            complement = state or word_end
            end = complement.end() if complement else verbs[0].end()
        key = _condition_key(word, sentence[match.end() : end])
        clauses.append(ConditionClause(match.start(), end, key))
    return clauses


def _condition_key(word: str, text: str) -> str:
    """The condition's subordinator class and its words, states normalised ("activated" and
    "turned on" are one state), determiners and copulas left out."""
    words = [w for w in re.findall(r"[\w'’\-]+", text.lower()) if w not in _CONDITION_FILLER]
    key: list[str] = []
    index = 0
    while index < len(words):
        pair = " ".join(words[index : index + 2])
        if pair in _STATES:
            key.append(_STATES[pair])
            index += 2
            continue
        key.append(_STATES.get(words[index], words[index]))
        index += 1
    return " ".join([_CONDITION_KEYS.get(word, word), *key])


def condition_scope(
    sentence: str, start: int, end: int, clauses: Sequence[ConditionClause]
) -> Scope:
    """The conditions governing the statement whose value is sentence[start:end]: a condition
    clause before it (not behind a semicolon: that is another statement), or one right after
    its value in the same clause ("the retry limit is 3 if the queue is full")."""
    found = {
        ("condition", c.key)
        for c in clauses
        if (c.end <= start and ";" not in sentence[c.end : start])
        or (c.start >= end and not re.search(r"[,;:]", sentence[end : c.start]))
    }
    return tuple(sorted(found))


def sentence_facts(
    sentence: str, clauses: Sequence[ConditionClause] | None = None
) -> list[tuple[FactKind, str, str, int, int]]:
    """(kind, subject, value, value start, value end) of the attribute facts of one sentence;
    offsets are inside `sentence`. A statement inside a condition clause ("When emergency mode
    is activated, ...") is the condition of the rest of the sentence, not a fact; `clauses`
    are the sentence's `condition_clauses` when the caller has them."""
    clauses = condition_clauses(sentence) if clauses is None else clauses
    found: list[tuple[FactKind, str, str, int, int]] = []
    for verb in (_LOCATED, _OWNED, _COPULA):
        for match in verb.finditer(sentence):
            if any(lo <= match.start() < hi for _, _, _, lo, hi in found):
                continue  # a verb inside an earlier fact's value
            if any(c.start <= match.start() < c.end for c in clauses):
                continue  # the state a condition names ("when X is off, ..."): not asserted
            # A condition without a comma ends where the main clause begins: the subject is
            # read only from there ("When the queue is full the retry limit is 3").
            begin = max((c.end for c in clauses if c.end <= match.start()), default=0)
            subject_words = _subject_before(sentence, match.start(), begin)
            if not subject_words:
                continue
            if verb is _LOCATED:
                kind: FactKind | None = "location"
                subject = " ".join([*subject_words, "location"])
            elif verb is _OWNED:
                kind = "owner"
                subject = " ".join([*subject_words, "owner"])
            else:
                kind = _kind_of(subject_words)
                subject = " ".join(subject_words)
            if kind is None:
                continue
            value = _value_after(sentence, match.end(), kind)
            if value is not None:
                start, end = value
                found.append((kind, subject, sentence[start:end], start, end))
    return found


def _subject_before(sentence: str, end: int, begin: int = 0) -> list[str]:
    """The noun phrase right before the verb (at most six words, none before `begin`), without
    determiners and condition words: "In version 2.0, the current retry limit" -> ["retry",
    "limit"]."""
    words: list[str] = []
    for raw in reversed(sentence[begin:end].split()):
        word = raw.strip("\"'()[]*_`").lower()
        if raw.endswith((",", ";", ":")) or not _SUBJECT_WORD.match(word) or len(words) >= 6:
            break
        if word in _SUBJECT_STOPS:
            break
        words.append(word)
    words.reverse()
    if words and words[0] in _QUANTIFIERS:
        return []  # "no plugin is required", "one dependency is slow": not one subject's value
    while words and (words[0] in _DETERMINERS or words[0] in _QUALIFIER_WORDS):
        words.pop(0)
    words = [w for w in words if w not in _QUALIFIER_WORDS]
    return words


def _kind_of(words: Sequence[str]) -> FactKind | None:
    if len(words) >= 2 and " ".join(words[-2:]) in _HEADS_2:
        return _HEADS_2[" ".join(words[-2:])]
    return _HEADS.get(words[-1]) if words else None


def _value_after(sentence: str, start: int, kind: FactKind) -> tuple[int, int] | None:
    rest = sentence[start:]
    if re.match(r"(?:not|never|no longer)\b", rest, re.IGNORECASE):
        return None  # negated statements are not compared
    for pattern in _VALUE_PATTERNS[kind]:
        match = pattern.match(rest)
        if match is None:
            continue
        value = match.group("v").rstrip(".,;:")
        if kind == "endpoint":
            value = value.rstrip(".,;:)")
        if not value or value.lower() in _NOT_VALUES or value.split()[0].lower() in _NOT_VALUES:
            continue
        if kind == "port" and not 0 < int(value) < 65536:
            continue
        if kind in _NAMED and not _name_like(value, rest[len(value) :]):
            continue
        alternative = _ALTERNATIVE.match(rest, len(value))
        if alternative and pattern.match(rest, alternative.end()):
            return None  # "is on or off", "is JSON or YAML": the options, not the value
        return start, start + len(value)
    return None


# "or", "and/or" or a slash between two values of one class lists options ("on/off").
_ALTERNATIVE = re.compile(r"[,;]?\s*(?:or|and/or|/)\s*(?:else\s+)?", re.IGNORECASE)


# Classes whose values are names; a plain lower-case word is prose there ("the module is
# installed today") unless it ends the sentence ("The HTTP client library is httpx.").
_NAMED: frozenset[FactKind] = frozenset({"location", "owner", "dependency", "format", "protocol"})


def _name_like(value: str, after: str) -> bool:
    if len(value) < 2:
        return False  # an initial cut off at its period ("owned by the E. W. Scripps ...")
    if re.search(r"[A-Z0-9.+#_/@-]", value):
        return True
    return re.fullmatch(r"[\s.;:!)\]\"'*_`]*", after) is not None


def normalise_value(kind: FactKind, value: str) -> str:
    text = " ".join(value.split())
    if kind == "state":
        return _STATES.get(text.lower(), text.lower())
    if kind == "measurement":
        text = re.sub(r"\+/-|\+-|\+/−", "±", text)
        text = text.replace("−", "-").replace(",", "")
        text = re.sub(r"\s+", "", text).lower()
        return re.sub(r"(\d+\.\d*?)0+(?=\D|$)", r"\1", text).replace(".±", "±")
    if kind in ("quantity", "port", "status_code"):
        number = text.replace(",", "").replace("−", "-")
        return number.rstrip("0").rstrip(".") if "." in number else number
    if kind == "version":
        return _version_norm(text)
    if kind == "date":
        return _date_norm(text)
    if kind == "endpoint":
        return text.rstrip("/").lower()
    return re.sub(r"[\s_\-]+", " ", text).strip().lower()


_MONTH_NUMBER = {
    name: index
    for index, names in enumerate(
        [("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"),
         ("may",), ("jun", "june"), ("jul", "july"), ("aug", "august"),
         ("sep", "sept", "september"), ("oct", "october"), ("nov", "november"),
         ("dec", "december")],
        1,
    )
    for name in names
}  # fmt: skip


def _date_norm(text: str) -> str:
    lowered = text.lower().replace(",", " ").replace(".", " ")
    iso = re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})", lowered.strip())
    if iso:
        return "-".join(iso.groups())
    words = re.findall(r"[a-z]+|\d+", lowered)
    month = next((_MONTH_NUMBER[w] for w in words if w in _MONTH_NUMBER), None)
    numbers = [w for w in words if w.isdigit()]
    year = next((n for n in numbers if len(n) == 4), None)
    day = next((n for n in numbers if len(n) <= 2), None)
    if year and month and day:
        return f"{year}-{month:02d}-{int(day):02d}"
    if year and month:
        return f"{year}-{month:02d}"
    return " ".join(words)


# --- aligned facts ---------------------------------------------------------------------------

_TOKEN = re.compile(r"[$€£]?\d[\d,.]*\d%?|[$€£]?\d%?|[^\W\d_][\w'’\-]*")
_CITATION_MARK = re.compile(r"\[\s*(?:\d+|[a-z]|edit|citation needed)\s*\]", re.IGNORECASE)
_MONTH_WORDS = frozenset(_MONTH_NUMBER)
# Capitalised words that start sentences or clauses without naming anything.
_STOP_CAPITALS = frozenset(
    _words(
        "the a an in on at it he she they we i you his her its their our this that these those "
        "of and or but for as by with from to is was were are be there here when where which "
        "who what after before during while also however although since until if then thus so "
        "according"
    )
)


NORM_TOKEN_CACHE_WORDS = 65_536  # distinct tokens kept normalised (about 8 MiB at most)


def _is_number(token: str) -> bool:
    return token.lstrip("$€£")[:1].isdigit()


def _is_value_token(token: str) -> bool:
    if _is_number(token):
        return True
    lower = token.lower()
    return lower in _MONTH_WORDS or (token[:1].isupper() and lower not in _STOP_CAPITALS)


# Tokens recur across paragraphs and documents (the scan compares one document's words with
# another's): normalise each distinct one once.
@functools.lru_cache(maxsize=NORM_TOKEN_CACHE_WORDS)
def norm_token(token: str) -> str:
    """Case, thousands separators, currency and percent signs and a trailing apostrophe are
    layout, not content: "13.6%" and "13.6 %" state one figure, "Brooks'" and "Brooks" one
    name."""
    if _is_number(token):
        return token.lower().replace(",", "").rstrip("%").lstrip("$€£")
    return token.lower().rstrip("'’")


def month_words() -> frozenset[str]:
    """Month names and their abbreviations, lower-case."""
    return _MONTH_WORDS


def is_anchor_token(token: str) -> bool:
    """A figure or a name (not a month word): what ties a statement to one entity."""
    return _is_value_token(token) and token.lower() not in _MONTH_WORDS


_SENTENCE_GAP = re.compile(r"[.!?;]")


def _ends_sentence(token: str, gap: str) -> bool:
    """The text between two tokens closes a sentence ("Stoke. Groves"), not an initial or a
    short abbreviation ("David S. Ware", "Dr. Dre"): a value run stops there."""
    return _SENTENCE_GAP.search(gap) is not None and len(token) > 2 and not token.isupper()


def _aligned_facts(
    passage: Passage, sentences: Sequence[tuple[int, int]], settings: FactSettings
) -> list[tuple[int, int, int, int, int, str, ParagraphTokens]]:
    """Value runs of a paragraph with their token frames: (sentence index, token start,
    token end, char start, char end, frame key, tokens). Citation marks ([1], [edit]) are
    ignored, so an edited copy with different reference markup still aligns."""
    text = passage.text
    masked = _mask_citations(text)
    matches = list(_TOKEN.finditer(masked))
    raw = tuple(m.group() for m in matches)
    tokens = tuple(norm_token(t) for t in raw)
    paragraph = ParagraphTokens(tokens, text, [i for m in matches for i in m.span()])
    k = settings.aligned_context_tokens
    found: list[tuple[int, int, int, int, int, str, ParagraphTokens]] = []
    index = 0
    while index < len(raw):
        if not _is_value_token(raw[index]):
            index += 1
            continue
        end = index + 1
        limit = min(len(raw), index + settings.max_value_tokens)
        while (
            end < limit
            and _is_value_token(raw[end])
            and not _ends_sentence(
                raw[end - 1], masked[matches[end - 1].end() : matches[end].start()]
            )
        ):
            end += 1
        if index >= k and end + k <= len(raw):
            char_start, char_end = matches[index].start(), matches[end - 1].end()
            sentence = next(
                (i for i, (lo, hi) in enumerate(sentences) if lo <= char_start < hi), None
            )
            if sentence is not None:
                before, after = tokens[index - k : index], tokens[end : end + k]
                frame = " ".join(before) + " _ " + " ".join(after)
                found.append((sentence, index, end, char_start, char_end, frame, paragraph))
        index = end
    return found


# --- instructions ------------------------------------------------------------------------------

# Verbs that open an instruction ("Tap Add account > Google.", "From Settings, tap ..."): the
# names in one are the labels to act on. Two procedures of one manual share their wording
# ("From Settings, tap Biometrics and security > Fingerprints" / "> Samsung Blockchain
# Keystore") and differ in exactly those labels by design, so an instruction's names are not
# statements to compare; its figures ("hold the key for 10 seconds") still are.
_IMPERATIVE = (
    r"(?:tap|double[- ]tap|touch|swipe|drag|press|click|select|choose|scroll|pinch|slide|hold|"
    r"enter|type|turn|open|follow|navigate|go|set\s+up|use|check|enable|disable|activate|"
    r"deactivate|install|insert|remove|connect|disconnect|restart|reset|adjust|customi[sz]e|"
    r"configure|view|change|allow|launch|ensure|make\s+sure)"
)
_INSTRUCTION = re.compile(
    # at the sentence start, after a NOTE / TIP label or an option's "Label:"
    rf"^\W*(?:(?i:note|tip|caution|warning|important)\b\W*|[^.:;]{{1,60}}:\s*)?(?i:{_IMPERATIVE})\b"
    # after an opening phrase ("From Settings, tap", "To save power, turn") or "then"
    rf"|\b(?:From|On|In|To|When|If|Once|After|Before|While|Under|Using|For|With)\b[^,.;:]{{0,80}},"
    rf"\s*(?i:and\s+)?(?i:then\s+)?(?i:{_IMPERATIVE})\b"
    rf"|\b(?i:then)\s+(?i:{_IMPERATIVE})\b"
)
# The verb read as a noun or a title word: "Use of force was ...", "Open Season is a film".
_NOT_IMPERATIVE = re.compile(r"\s+(?:of\b|(?:\S+\s+){0,2}(?:is|was|are|were|has|had|have)\b)")


def is_instruction(sentence: str) -> bool:
    """The sentence tells the reader what to do (an imperative), at its start or after an
    opening phrase: "Tap More options > Send email.", "From Apps, tap Samsung folder"."""
    return any(
        not _NOT_IMPERATIVE.match(sentence, match.end())
        for match in _INSTRUCTION.finditer(sentence)
    )


# --- extraction over passages ----------------------------------------------------------------

_SKIPPED_KINDS = frozenset({"code", "mermaid", "heading"})
# Table rows repeat one frame with a different figure per row by design: not statements.
_NOT_ALIGNED_KINDS = frozenset({"table"})


def extract_facts(passages: Iterable[Passage], settings: FactSettings | None = None) -> list[Fact]:
    """Every comparable fact of the passages, in reading order (passages as given)."""
    passages = list(passages)
    return bind_facts(passages, fact_heads(passages, settings), settings)


class FactHead(msgspec.Struct, frozen=True, kw_only=True):
    """What the conflict scan groups a fact by, read before the fact is bound to its document
    and sentence: most facts of a question's documents meet no other value, and binding all of
    them (sentence, line, tokens as written) cost more than the comparison itself."""

    passage: int  # index into the passages
    index: int  # among the passage's facts
    order: int  # reading order among all the passages' facts: the bound Fact's `order`
    document_id: str
    kind: FactKind
    key: str
    norm: str
    scope: Scope
    before: str = ""  # aligned: the normalised frame words right before the value
    after: str = ""  # and right after it


def fact_heads(passages: Sequence[Passage], settings: FactSettings | None = None) -> list[FactHead]:
    """The heads of every comparable fact of the passages, numbered as `extract_facts` numbers
    them (at most `max_facts_per_document` per document)."""
    settings = settings or FactSettings()
    heads: list[FactHead] = []
    per_document: dict[str, int] = {}
    for number, passage in enumerate(passages):
        kept = per_document.get(passage.document_id, 0)
        if passage.kind in _SKIPPED_KINDS or kept >= settings.max_facts_per_document:
            continue
        found = _unbound_facts(passage, settings)[: settings.max_facts_per_document - kept]
        per_document[passage.document_id] = kept + len(found)
        for index, fact in enumerate(found):
            before = after = ""
            if fact.kind == "aligned":
                before, after = frame_halves(fact.key)
            heads.append(
                FactHead(passage=number, index=index, order=len(heads),
                         document_id=passage.document_id, kind=fact.kind, key=fact.key,
                         norm=fact.norm, scope=fact.scope, before=before, after=after)
            )  # fmt: skip
    return heads


def frame_halves(key: str) -> tuple[str, str]:
    """An aligned fact's frame words right before and right after its value, from its key
    "aligned:<before> _ <after>" (normalised words joined by single spaces; no token is a lone
    "_", a token starts with a letter or a figure)."""
    before, _, after = key.removeprefix("aligned:").partition(" _ ")
    return before, after


def bind_facts(
    passages: Sequence[Passage], heads: Iterable[FactHead], settings: FactSettings | None = None
) -> list[Fact]:
    """The Facts of the given heads, placed in their documents (in the order given)."""
    settings = settings or FactSettings()
    tokens: dict[int, ParagraphTokens] = {}  # by passage, for aligned facts
    bound: list[Fact] = []
    for head in heads:
        passage = passages[head.passage]
        fact = _unbound_facts(passage, settings)[head.index]
        if isinstance(fact, Fact):
            bound.append(msgspec.structs.replace(fact, order=head.order))
            continue
        own = NO_TOKENS
        if fact.kind == "aligned":
            if head.passage not in tokens:
                tokens[head.passage] = _paragraph_tokens(passage)
            own = tokens[head.passage]
        bound.append(_bound_fact(passage, fact, head.order, own))
    return bound


def _paragraph_tokens(passage: Passage) -> ParagraphTokens:
    """The passage's tokens, from its stored analysis when it has one."""
    norms, offsets = _passage_tokens(passage)
    return ParagraphTokens(norms, passage.text, offsets)


def _unbound_facts(passage: Passage, settings: FactSettings) -> Sequence[StoredFact | Fact]:
    """The passage's stored facts (computed at ingest with the default settings), or, without
    them, its facts extracted from the text (cached: that is a parse)."""
    stored = decode_analysis(passage.analysis) if settings == _DEFAULT_SETTINGS else None
    return stored.facts if stored is not None else _cached_passage_facts(passage, settings)


# Facts extracted from a passage's text when it has no stored analysis (or the settings are
# not the default ones the analysis was made with): the same documents are scanned question
# after question, and extraction is pure (numbered from 0; bind_facts renumbers them).
@functools.lru_cache(maxsize=TEXT_CACHE_PARAGRAPHS)
def _cached_passage_facts(passage: Passage, settings: FactSettings) -> tuple[Fact, ...]:
    return tuple(_passage_facts(passage, settings))


_DEFAULT_SETTINGS = FactSettings()


def forget_facts() -> None:
    """Empty the cache of extracted facts (benchmarks that meet every text cold)."""
    _cached_passage_facts.cache_clear()
    _text_tokens.cache_clear()
    _text_anchors.cache_clear()
    decode_analysis.cache_clear()
    norm_token.cache_clear()


def _mask_citations(text: str) -> str:
    """Citation marks ([12], [edit]) blanked out, offsets kept."""
    return _CITATION_MARK.sub(lambda m: " " * len(m.group()), text)


def _passage_facts(passage: Passage, settings: FactSettings) -> list[Fact]:
    sentences = [
        s
        for s in split_sentences(passage.text)
        if len(s.text) <= settings.max_sentence_chars and not s.text.lstrip().startswith("#")
    ]
    spans = [(s.start, s.end) for s in sentences]
    facts: list[Fact] = []
    covered: list[tuple[int, int]] = []  # value ranges of attribute facts (paragraph offsets)
    for sentence in sentences:
        clauses = condition_clauses(sentence.text)
        for kind, subject, value, lo, hi in sentence_facts(sentence.text, clauses):
            scope = tuple(sorted({*qualifiers(sentence.text, skip=[(lo, hi)]),
                                  *condition_scope(sentence.text, lo, hi, clauses)}))  # fmt: skip
            start, end = sentence.start + lo, sentence.start + hi
            covered.append((start, end))
            facts.append(
                _fact(passage, sentence.start, sentence.end, sentence.text, len(facts),
                      kind=kind, subject=subject, key=f"{kind}:{subject}", value=value,
                      norm=normalise_value(kind, value), scope=scope, value_start=start,
                      value_end=end)
            )  # fmt: skip
    aligned = [] if passage.kind in _NOT_ALIGNED_KINDS else _aligned_facts(passage, spans, settings)
    instructions: dict[int, bool] = {}
    for index, t_start, t_end, c_start, c_end, frame, tokens in aligned:
        if any(c_start < hi and lo < c_end for lo, hi in covered):
            continue  # an attribute fact already states this value
        s_start, s_end = spans[index]
        sentence_text = passage.text[s_start:s_end]
        if index not in instructions:
            instructions[index] = is_instruction(sentence_text)
        if instructions[index] and not any(_is_number(t) for t in tokens.norms[t_start:t_end]):
            continue  # a label to act on in an instruction, not a statement (see _INSTRUCTION)
        # The differing words may themselves be the condition ("applies only on the Android
        # platform" vs "... Windows platform"): read the scope with the value included.
        scope = qualifiers(sentence_text)
        value = passage.text[c_start:c_end]
        facts.append(
            _fact(passage, s_start, s_end, sentence_text, len(facts), kind="aligned",
                  subject=frame.replace(" _ ", " … "), key=f"aligned:{frame}", value=value,
                  norm=" ".join(tokens.norms[t_start:t_end]), scope=scope,
                  value_start=c_start, value_end=c_end, tokens=tokens, token_start=t_start,
                  token_end=t_end)
        )  # fmt: skip
    return facts


# --- word tokens (for edits of plain words, conflicts.py) ---------------------------------------


class WordToken(msgspec.Struct, frozen=True, kw_only=True):
    """One token of a passage: its normalised form, and where it sits in the passage."""

    norm: str
    raw: str  # as written
    passage: int  # index into the passages given to `document_tokens`
    index: int  # position among the passage's tokens
    start: int  # character offsets inside the passage text
    end: int


class DocumentWords(msgspec.Struct, frozen=True, kw_only=True):
    """A document's normalised tokens in reading order, and where each passage's run of them
    begins: the near-copy test reads only the words, the few edits it finds become WordTokens."""

    norms: list[str]
    starts: list[int]  # index into `norms` where each run begins
    passages: list[int]  # the passage (index into the passages given) of each run

    def token(self, passages: Sequence[Passage], index: int) -> WordToken:
        run = bisect.bisect_right(self.starts, index) - 1
        number = self.passages[run]
        passage = passages[number]
        at = index - self.starts[run]
        offsets = _passage_tokens(passage)[1]
        start, end = offsets[2 * at], offsets[2 * at + 1]
        return WordToken(norm=self.norms[index], raw=passage.text[start:end], passage=number,
                         index=at, start=start, end=end)  # fmt: skip


def document_words(passages: Sequence[Passage], max_tokens: int) -> dict[str, DocumentWords]:
    """Each document's tokens in reading order (citation marks left out), at most `max_tokens`
    per document; the passages that give no aligned facts (code, tables, headings) are skipped."""
    found: dict[str, DocumentWords] = {}
    for number, passage, norms in _document_runs(passages, max_tokens):
        words = found.setdefault(passage.document_id,
                                 DocumentWords(norms=[], starts=[], passages=[]))  # fmt: skip
        if norms:
            words.starts.append(len(words.norms))
            words.passages.append(number)
            words.norms.extend(norms)
    return found


def document_vocabularies(
    passages: Sequence[Passage], max_tokens: int
) -> dict[str, tuple[set[str], int]]:
    """Each document's distinct words and number of tokens over exactly the tokens
    `document_words` gives it, without building its word list: enough to rule out most pairs
    of documents as near copies of each other."""
    found: dict[str, tuple[set[str], int]] = {}
    for _, passage, norms in _document_runs(passages, max_tokens):
        words, count = found.get(passage.document_id) or (set(), 0)
        words.update(norms)
        found[passage.document_id] = (words, count + len(norms))
    return found


def _document_runs(
    passages: Sequence[Passage], max_tokens: int
) -> Iterator[tuple[int, Passage, Sequence[str]]]:
    """Each passage that can give aligned facts (its index, itself, its normalised tokens),
    the tokens cut where its document reaches `max_tokens`."""
    taken: dict[str, int] = {}
    for number, passage in enumerate(passages):
        if passage.kind in _SKIPPED_KINDS or passage.kind in _NOT_ALIGNED_KINDS:
            continue
        kept = taken.get(passage.document_id, 0)
        norms = _passage_tokens(passage)[0]
        if kept + len(norms) > max_tokens:
            norms = norms[: max_tokens - kept]
        taken[passage.document_id] = kept + len(norms)
        yield number, passage, norms


class DocumentProfile(msgspec.Struct, frozen=True, kw_only=True):
    """What a whole document mentions: its distinct names and figures (anchors, which tell
    the entity a page is about) and every distinct normalised word."""

    anchors: frozenset[str]
    words: frozenset[str]

    def same_entity_share(self, other: DocumentProfile) -> float:
        """Share of the smaller anchor set the other document also has: an edited copy of a
        page keeps nearly all of its names and figures, a page about another entity that
        shares a template keeps few."""
        smaller = min(len(self.anchors), len(other.anchors))
        return len(self.anchors & other.anchors) / max(1, smaller)


class DocumentProfiles(Mapping[str, DocumentProfile]):
    """Each document's profile over the passages that give facts, made when first asked for:
    a scan needs the profiles only of documents whose statements it compares, and making one
    reads every word of its document."""

    def __init__(self, passages: Sequence[Passage]) -> None:
        self._passages: dict[str, list[Passage]] = {}
        for passage in passages:
            if passage.kind not in _SKIPPED_KINDS and passage.kind not in _NOT_ALIGNED_KINDS:
                self._passages.setdefault(passage.document_id, []).append(passage)
        self._made: dict[str, DocumentProfile] = {}

    def __getitem__(self, document_id: str) -> DocumentProfile:
        profile = self._made.get(document_id)
        if profile is None:
            profile = self._made[document_id] = _profile(self._passages[document_id])
        return profile

    def __iter__(self) -> Iterator[str]:
        return iter(self._passages)

    def __len__(self) -> int:
        return len(self._passages)


def document_profiles(passages: Sequence[Passage]) -> DocumentProfiles:
    """Each document's profile over the passages that give facts (made lazily, from the texts'
    cached analyses)."""
    return DocumentProfiles(passages)


def _profile(passages: Iterable[Passage]) -> DocumentProfile:
    anchors: set[str] = set()
    words: set[str] = set()
    for passage in passages:
        stored = decode_analysis(passage.analysis)
        anchors.update(stored.anchors if stored else _text_anchors(passage.text))
        words.update(_passage_tokens(passage)[0])
    return DocumentProfile(anchors=frozenset(anchors), words=frozenset(words))


@functools.lru_cache(maxsize=TEXT_CACHE_PARAGRAPHS)
def _text_anchors(text: str) -> frozenset[str]:
    """The normalised names and figures of a text (single letters left out: initials)."""
    return frozenset(
        norm_token(m.group())
        for m in _TOKEN.finditer(_mask_citations(text))
        if len(m.group()) > 1 and is_anchor_token(m.group())
    )


@functools.lru_cache(maxsize=TEXT_CACHE_PARAGRAPHS)
def _text_tokens(text: str) -> tuple[tuple[str, ...], array[int]]:
    """Each token's normalised form and its (start, end) offsets, cached like the facts (the
    same documents are scanned question after question). Compact on purpose: interned words
    and an integer array take about a tenth of the memory of a tuple per token."""
    matches = list(_TOKEN.finditer(_mask_citations(text)))
    norms = tuple(sys.intern(norm_token(m.group())) for m in matches)
    return norms, array("I", [i for m in matches for i in m.span()])


def _passage_tokens(passage: Passage) -> tuple[Sequence[str], Sequence[int]]:
    stored = decode_analysis(passage.analysis)
    return (stored.norms, stored.offsets) if stored else _text_tokens(passage.text)


# --- stored analysis (computed at ingest, analysis.py) -------------------------------------------


def paragraph_analysis(text: str, kind: str) -> bytes:
    """What ingest stores with a paragraph: its facts (default settings), tokens and anchors,
    exactly as the scan would compute them from the text."""
    passage = Passage(document_id="", path="", paragraph_id="", text=text, start_offset=0,
                      start_line=1, kind=kind)  # fmt: skip
    facts = () if kind in _SKIPPED_KINDS else _passage_facts(passage, _DEFAULT_SETTINGS)
    # Not through the caches: ingest meets each text once, and the caches serve answers.
    norms, offsets = _text_tokens.__wrapped__(text)
    return encode_analysis(
        TextAnalysis(
            version=ANALYSIS_VERSION, words=" ".join(norms), offsets=pack_offsets(offsets),
            anchors=tuple(sorted(_text_anchors.__wrapped__(text))),
            facts=tuple(
                StoredFact(kind=f.kind, subject=f.subject, key=f.key, norm=f.norm, scope=f.scope,
                           sentence_start=f.sentence_start, sentence_end=f.sentence_end,
                           value_start=f.value_start, value_end=f.value_end,
                           token_start=f.token_start, token_end=f.token_end)
                for f in facts
            ),
        )
    )  # fmt: skip


def _bound_fact(passage: Passage, stored: StoredFact, order: int, tokens: ParagraphTokens) -> Fact:
    """A stored fact placed in its passage's document (the text supplies value and sentence;
    `tokens` are the paragraph's, which aligned facts carry)."""
    text = passage.text
    return _fact(
        passage, stored.sentence_start, stored.sentence_end,
        text[stored.sentence_start : stored.sentence_end], order, kind=stored.kind,
        subject=stored.subject, key=stored.key, value=text[stored.value_start : stored.value_end],
        norm=stored.norm, scope=stored.scope, value_start=stored.value_start,
        value_end=stored.value_end, tokens=tokens,
        token_start=stored.token_start, token_end=stored.token_end,
    )  # fmt: skip


def edit_fact(
    passage: Passage, first: WordToken, last: WordToken, order: int, *, context: int
) -> Fact:
    """An aligned fact for the words first..last of a passage (an edit found by comparing two
    documents word by word), with its sentence and that sentence's condition scope. `context`
    words each side frame it, as `aligned_context_tokens` frames an aligned fact."""
    tokens = _paragraph_tokens(passage)
    norms = tokens.norms
    sentence = next(
        (s for s in split_sentences(passage.text) if s.start <= first.start < s.end),
        None,
    )
    lo, hi = (sentence.start, sentence.end) if sentence else (0, len(passage.text))
    text = passage.text[lo:hi]
    value = passage.text[first.start : last.end]
    before = " ".join(norms[max(0, first.index - context) : first.index])
    after = " ".join(norms[last.index + 1 : last.index + 1 + context])
    return _fact(
        passage, lo, hi, text, order, kind="aligned", subject=f"{before} … {after}",
        key=f"aligned:{before} _ {after}",
        value=value, norm=" ".join(norms[first.index : last.index + 1]),
        scope=qualifiers(text), value_start=first.start, value_end=last.end, tokens=tokens,
        token_start=first.index, token_end=last.index + 1,
    )  # fmt: skip


def _fact(
    passage: Passage,
    sentence_start: int,
    sentence_end: int,
    sentence: str,
    order: int,
    *,
    kind: FactKind,
    subject: str,
    key: str,
    value: str,
    norm: str,
    scope: Scope,
    value_start: int,
    value_end: int,
    tokens: ParagraphTokens = NO_TOKENS,
    token_start: int = 0,
    token_end: int = 0,
) -> Fact:
    return Fact(
        kind=kind,
        subject=subject,
        key=key,
        value=value,
        norm=norm,
        scope=scope,
        document_id=passage.document_id,
        path=passage.path,
        paragraph_id=passage.paragraph_id,
        sentence_start=sentence_start,
        sentence_end=sentence_end,
        sentence=sentence,
        value_start=value_start,
        value_end=value_end,
        start_offset=passage.start_offset + sentence_start,
        line=passage.start_line + passage.text[:sentence_start].count("\n"),
        order=order,
        tokens=tokens,
        token_start=token_start,
        token_end=token_end,
    )
