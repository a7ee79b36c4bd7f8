"""page_furniture: the running heads and feet a PDF conversion leaves between paragraphs.

A manual exported to text keeps each page's head or foot as a line of its own: "Norvik N7 User
Manual 54", "Chapter 5 Network 57". Quoted in an answer it is noise, and compared by the conflict
scan it is two "values" of one sentence. Such a line is a paragraph of one short line with no
sentence punctuation that ends in a page number, and either it repeats (the same words with
another number stand elsewhere in what was read) or it reads as a title: three words or more,
each capitalised but for small function words ("Altamira LP-540 User's Guide 22"), or a
numbered chapter or section ("Chapter 3 Paper handling 29"). "Tray 2" or
"Maximum load 25" alone on a line is left alone.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["page_furniture"]

_MAX_WORDS = 10
_SMALL_WORDS = frozenset(
    ["a", "an", "and", "at", "by", "for", "in", "of", "on", "or", "the", "to", "with"]
)
# "Chapter 3 Paper handling 29": a numbered part of the book, then the page.
_NUMBERED_PART = re.compile(r"^(?:chapter|section|part|appendix)\s+[\dA-Z]{1,3}\s", re.IGNORECASE)
# Words without sentence punctuation, then a page number closing the line.
_RUNNING_LINE = re.compile(r"^[^\n.!?:;|#>*`\[\]]{2,100}?\s\d{1,4}$")


def _key(row: Mapping[str, Any]) -> str | None:
    if str(row.get("kind", "paragraph")) != "paragraph":
        return None
    text = str(row.get("text") or "").strip()
    if len(text.split()) > _MAX_WORDS or not _RUNNING_LINE.match(text):
        return None
    return re.sub(r"\d+", "#", text.lower())


def _title(text: str) -> bool:
    words = text.split()
    return len(words) >= 3 and (
        _NUMBERED_PART.match(text) is not None
        or all(w[0].isupper() or w[0].isdigit() or w.lower() in _SMALL_WORDS for w in words)
    )


def page_furniture(rows: Iterable[Mapping[str, Any]]) -> frozenset[str]:
    """The paragraph ids of the rows that are running heads or feet: lines of that shape whose
    words (numbers aside) stand in at least two of the rows, or that read as a title."""
    keyed = [(str(row["paragraphId"]), str(row.get("text") or ""), _key(row)) for row in rows]
    counts = Counter(key for _, _, key in keyed if key is not None)
    return frozenset(
        p for p, text, key in keyed
        if key is not None and (counts[key] >= 2 or _title(text.strip()))
    )  # fmt: skip
