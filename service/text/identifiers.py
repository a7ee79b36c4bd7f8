"""identifiers: the names with digits that tell one thing from its siblings.

"Harbour 6.0" is not "Harbour 5.8.2", "version 2" not "version 1", the "A5" tray not the "A4"
one. A sentence that names a sibling of the identifier a question asks about holds a value
about the sibling (service/answer/typed_value.py). Values with a unit ("1.7 litres") and dates
are not identifiers.
"""

from __future__ import annotations

import re

from service.text.answer_types import unit_word

__all__ = ["identifiers"]


def identifiers(text: str) -> set[tuple[str, str]]:
    """(kind, lower-cased token) of the identifiers in `text`: dotted numbers ("5.8.2"),
    letter-digit codes ("A5", "LP-540", "v2"; siblings share a shape: "a#", "lp-#"), and
    numbers after a noun that numbers things ("version 2", "floor 3")."""
    found = {
        ("dotted", m.group(0)) for m in _DOTTED.finditer(text)
        if not _is_unit(_word_after(text, m.end()))
    }  # fmt: skip
    for m in _CODE.finditer(text):
        code = m.group(0).lower()
        found.add((re.sub(r"\d+", "#", code), code))
    found |= {(m.group(1).lower(), m.group(2)) for m in _NUMBERED.finditer(text)}
    return found


def _word_after(text: str, end: int) -> str:
    rest = text[end:].split(maxsplit=1)
    return rest[0].strip(".,;:?!()").lower() if rest else ""


def _is_unit(word: str) -> bool:
    return unit_word(word) or _SHORT_UNIT.fullmatch(word) is not None


_SHORT_UNIT = re.compile(
    r"(?:second|minute|hour|day|week|month|year|km|m|kg|g|l|ml|mm|cm|gb|mb|v|w)s?", re.IGNORECASE
)
_DOTTED = re.compile(r"(?<![\w.])\d+(?:\.\d+)+(?![\w]|\.\d)")
_CODE = re.compile(
    r"(?<![\w.-])(?=[\w-]*[A-Za-z])(?=[\w-]*\d)[A-Za-z\d]+(?:-[A-Za-z\d]+)*(?![\w-])"
)
_NUMBERED = re.compile(
    r"\b(version|model|release|generation|gen|series|phase|level|stage|step|room|floor|"
    r"building|line|platform|gate|bay|zone|type|class|mark|mk|tier|plan|channel|port|slot)"
    r"\s+(\d+)(?![\w.]|\.\d)",
    re.IGNORECASE,
)
