"""Condition clauses (when, if, unless, before, ...): the condition a statement holds under, which
scopes the facts it governs."""

from __future__ import annotations

import re
from collections.abc import Sequence

import msgspec

from service.text.analysis import (
    Scope,
)
from service.text.facts.attribute_patterns import _COPULA, _STATE, _STATES
from service.text.tokens import split_words

__all__ = ["ConditionClause", "condition_clauses", "condition_scope"]

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
    split_words("the a an its their our this that these those your is are was were be been being")
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
