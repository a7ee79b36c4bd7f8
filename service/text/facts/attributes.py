"""Attribute facts of one sentence: "<subject> is <value>" with a value of the subject's class,
and the normalised value that compares them."""

from __future__ import annotations

import re
from collections.abc import Sequence

from service.text.analysis import (
    FactKind,
)
from service.text.facts.attribute_patterns import (
    _COPULA,
    _DETERMINERS,
    _HEADS,
    _HEADS_2,
    _LOCATED,
    _NOT_VALUES,
    _OWNED,
    _QUALIFIER_WORDS,
    _QUANTIFIERS,
    _STATES,
    _SUBJECT_STOPS,
    _SUBJECT_WORD,
    _VALUE_PATTERNS,
)
from service.text.facts.conditions import ConditionClause, condition_clauses
from service.text.facts.qualifiers import _version_norm

__all__ = ["normalise_value", "sentence_facts"]


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
