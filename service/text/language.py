"""language_of: the language a sentence is written in, by script and by its function words.

Enough to tell a sentence written in another language than its page and its question (an
instruction to AI assistants slipped into an English manual in Dutch, say); not a general
language identifier. Scripts decide first (Cyrillic, Arabic, Devanagari, Hangul, kana, Han);
Latin-script text is scored against the most frequent function words of eight languages, and
text too short or too mixed to tell is "und" (undetermined), which never counts as foreign.
"""

from __future__ import annotations

import re

from service.text.text_cache import paragraph_cache

__all__ = ["LIGHT_VERBS", "foreign_to", "function_word", "language_of"]

_SCRIPTS = (
    ("ru", re.compile(r"[\u0400-\u04ff]")),
    ("ar", re.compile(r"[\u0600-\u06ff\u0750-\u077f]")),
    ("hi", re.compile(r"[\u0900-\u097f]")),
    ("ko", re.compile(r"[\uac00-\ud7af\u1100-\u11ff]")),
    ("ja", re.compile(r"[\u3040-\u30ff]")),
    ("zh", re.compile(r"[\u4e00-\u9fff\u3400-\u4dbf]")),
)
# The most frequent short function words of each language (articles, prepositions, pronouns,
# auxiliaries): a sentence of any topic holds several.
_FUNCTION_WORDS = {
    "en": "the a an and of to in is are be for on with that this it you your not or as by from "
          "at was will can if when",
    "es": "el la los las un una y de del que en es por para con no su sus se lo al como más "
          "pero este esta usted tu todas todos sobre cuando",
    "de": "der die das den dem des ein eine und ist nicht zu mit für auf von im sie es bitte "
          "sich auch wenn oder wird werden ihre alle diese dieser nur",
    "fr": "le la les un une et de des du est pas pour avec que qui dans sur vous au aux ce "
          "cette ne votre vos tous toutes sont avant",
    "pt": "o a os as um uma e de do da dos das que em no na não para com por seu sua você ao "
          "como mais todas todos seus esta este",
    "it": "il lo la i gli le un una e di del della che in non per con è sono si al alla come "
          "più tuo tua questo tutte tutti sul nel",
    "nl": "de het een en van in is niet op te met voor dat die zijn je u uw ook als bij naar "
          "wordt dit deze aan om er wat hoe alle uit of maar",
    "tr": "ve bir bu için ile da de ne değil olarak gibi çok daha sonra her tüm lütfen sen "
          "siz olan veya",
}  # fmt: skip
_WORDS = {lang: frozenset(words.split()) for lang, words in _FUNCTION_WORDS.items()}
_LATIN_WORD = re.compile(r"[a-zà-öø-ÿğışçœ]+", re.IGNORECASE)
_MIN_HITS = 2  # function words needed before a Latin-script language is named


_ANY_FUNCTION_WORD = frozenset().union(*_WORDS.values())


# Verbs that say little of their own ("how long does it take", "what do I need", "when do you
# want to ..."): what a question asks about is in the words around them.
LIGHT_VERBS = frozenset(
    re.findall(
        r"\w+",
        "take takes taking took taken make makes making made get gets getting got have has "
        "having had do does doing did need needs needed use uses using used go goes going went "
        "come comes coming came give gives giving gave put puts putting want",
    )
)


def function_word(word: str) -> bool:
    """A function word of one of the Latin-script languages above ("de", "la", "het")."""
    return word.lower() in _ANY_FUNCTION_WORD


@paragraph_cache("function")
def language_of(text: str) -> str:
    """An ISO 639-1 code, or "und" when the text does not tell."""
    letters = sum(1 for ch in text if ch.isalpha())
    if not letters:
        return "und"
    for code, script in _SCRIPTS:
        found = len(script.findall(text))
        if found * 3 >= letters:
            if code == "zh" and _SCRIPTS[4][1].search(text):
                return "ja"  # Japanese mixes kana into Han text
            return code
    words = [w.lower() for w in _LATIN_WORD.findall(text)]
    scores = {lang: sum(1 for w in words if w in vocabulary) for lang, vocabulary in _WORDS.items()}
    best = max(scores, key=lambda lang: scores[lang])
    ranked = sorted(scores.values(), reverse=True)
    if ranked[0] < _MIN_HITS or ranked[0] == ranked[1]:
        return "und"
    return best


def foreign_to(sentence: str, *others: str) -> bool:
    """The sentence is in a language none of `others` (the question, its page) is written in."""
    own = language_of(sentence)
    if own == "und":
        return False
    known = {language_of(text) for text in others} - {"und"}
    return bool(known) and own not in known
