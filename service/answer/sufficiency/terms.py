"""Term matching of the review: stems of Latin words, compact keys of other terms."""

from __future__ import annotations

import re
from collections.abc import Sequence

from service.text.relation_labels import compact_key
from service.text.tokens import latin_words


def _stem(word: str) -> str:
    """A crude English stem ('filmed', 'filming', 'films' -> 'film'; 'wrote', 'written' ->
    'write'), enough to match a key term against the words of one sentence."""
    word = _IRREGULAR.get(word, word)
    stem = _SUFFIX.sub("", word)
    if len(stem) > 3 and stem.endswith("e"):  # "take", "takes" -> "tak"; "release(d)" -> "releas"
        stem = stem[:-1]
    return stem if len(stem) >= 3 else word


def stems(text: str) -> set[str]:
    return {_stem(w) for w in latin_words(text)}


def has_term(text: str, term: str, words: set[str]) -> bool:
    """A Latin word term matches a word of the text by stem; other terms (CJK, compounds)
    match by their compact form, as in _coverage."""
    if term.isascii() and term.isalnum():
        return _stem(term) in words
    key = compact_key(term)
    return bool(key) and key in compact_key(text)


def _share(terms: Sequence[str], text: str) -> float:
    """Share of `terms` found in `text` (1.0 when there are none to find)."""
    words = stems(text)
    return sum(1 for t in terms if has_term(text, t, words)) / len(terms) if terms else 1.0


_SUFFIX = re.compile(r"(?:ings?|ed|es|s|ly)$")
# Irregular verb forms a question and its answer often differ by ("who wrote" / "was written
# by"), each to its base; forms that are also common nouns or adjectives ("left", "saw",
# "found", "rose") are left out.
_IRREGULAR_FORMS = """
write wrote written writes writing
build built
win won winning
shoot shot
take took taken
come came
make made
begin began begun beginning
sing sang sung
give gave given
get got gotten
go went gone
know knew known
tell told
think thought
bring brought
buy bought
catch caught
teach taught
fight fought
lose lost
pay paid
run ran
say said
sell sold
send sent
spend spent
stand stood
wear wore worn
draw drew drawn
choose chose chosen
grow grew grown
fly flew flown
drive drove driven
break broke broken
speak spoke spoken
steal stole stolen
hide hid hidden
eat ate eaten
become became
strike struck
sink sank sunk
throw threw thrown
feel felt
keep kept
hear heard
die died dies dying
hold held
born bore
mean meant
sleep slept
swim swam swum
"""  # each line: the base, then its forms
_IRREGULAR = {
    form: base
    for base, *forms in (line.split() for line in _IRREGULAR_FORMS.strip().splitlines())
    for form in forms
}
