"""What the injection screen reports, and the normalisation that undoes hiding tricks."""

from __future__ import annotations

import html
import re
import unicodedata
from typing import Literal

import msgspec

__all__ = ["Finding", "Injection", "InjectionScan", "Reason", "normalize"]


Reason = Literal["injection_instruction", "injection_demanded_output"]


class Injection(msgspec.Struct, frozen=True, kw_only=True):
    sentence: str  # as in the text (offsets below)
    start: int
    end: int
    outputs: tuple[str, ...]  # what it asks to be output (normalised, see demanded_outputs)


class InjectionScan(msgspec.Struct, frozen=True, kw_only=True):
    """What the screened texts hold: instruction sentences and the outputs they demand."""

    sentences: tuple[str, ...] = ()  # the instruction sentences, as found
    outputs: tuple[str, ...] = ()  # demanded outputs, normalised, longest first

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(k for k in (_key(s) for s in self.sentences) if k)


class Finding(msgspec.Struct, frozen=True, kw_only=True):
    reason: Reason
    output: str = ""  # the demanded output found (injection_demanded_output only)


# Sentences shorter than this (letters and digits) are not matched by containment: "Sure!" or
# "Good." would otherwise match any sentence holding the word.
_MIN_KEY = 12

# --- normalisation ----------------------------------------------------------------------------

# Attacks hide words from naive matching: "\u0049gnore", "&#73;gnore", zero-width joiners,
# full-width letters. Undo those before matching (never for the text that is published).
_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})|\\x([0-9a-fA-F]{2})")
_INVISIBLE = re.compile("[\u00ad\u200b-\u200f\u2028-\u202e\u2060-\u2064\ufeff]")


def normalize(text: str) -> str:
    text = _ESCAPE.sub(lambda m: chr(int(m.group(1) or m.group(2), 16)), text)
    text = html.unescape(text)
    text = unicodedata.normalize("NFKC", text)
    text = _INVISIBLE.sub("", text)
    return " ".join(text.split())


def _key(text: str) -> str:
    """Letters and digits only: the public text of a sentence drops Markdown and labels, so it is
    compared with its source sentence on what both keep."""
    return re.sub(r"[\W_]+", "", normalize(text).casefold())
