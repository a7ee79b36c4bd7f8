"""Span retrieval helpers: sentences, best spans, citation ids and relevant segments.

Pure and deterministic. A retrieved paragraph is narrowed to its best-matching sentence(s) with
exact offsets (`text[start:end] == span`); several spans of one document stay one knowledge
point, each with its own stable citation id. Across a document's paragraphs in reading order,
`relevant_segments` picks contiguous runs in the manner of dsRAG's relevant segment extraction
(RSE): each paragraph is worth its score minus a threshold, and the best-summing runs win, so a
weak paragraph sandwiched between strong ones is kept while an isolated weak one is not.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from typing import Protocol

import msgspec

from service.text.text_cache import paragraph_cache

__all__ = [
    "Segment",
    "Sentence",
    "SpanChoice",
    "best_span",
    "citation_id",
    "cjk_bigrams",
    "mentions_any",
    "relevant_segments",
    "split_sentences",
    "term_keys",
]

# Han (with extension A, compatibility and extension B-F), kana and Hangul syllables; CJK
# punctuation (U+3000-U+303F) is deliberately outside, it never belongs to a term.
_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af\U00020000-\U0002ebef"
_CJK_RUN = re.compile(f"[{_CJK}]+")
_CJK_CHAR = re.compile(f"[{_CJK}]")
# A word character that is not CJK: ASCII terms must match next to CJK text ("用Neo4j实现").
_WORD_CHAR = f"[^\\W{_CJK}]"


class _Matcher(Protocol):
    def search(self, text: str, /) -> object: ...


_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}(?:[ \t]|$)")
_LIST_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+(?=\S)")
_TABLE_DELIMITER = re.compile(r"^[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$")

_CLOSERS = "\"')]}*_`”’»」』）》】〕"
_TERMINATOR = re.compile(f"(?:[。！？；।॥؟۔]+|[.!?…]+)[{re.escape(_CLOSERS)}]*")
# Marks that end a sentence wherever they stand: Chinese and Japanese, the Devanagari danda
# (Hindi), the Arabic question mark and the Urdu full stop.
_CJK_STOPS = frozenset("。！？；।॥؟۔")
# Never end a sentence after these ("e.g. Neo4j", "Dr. Smith", "A vs. B").
_ABBREVIATIONS = frozenset(
    re.findall(r"\S+", "e.g i.e cf viz vs dr mr mrs ms prof sr jr st al approx resp")
)
# Do not end a sentence after these when a number follows ("No. 5", "Fig. 3", "pp. 10").
_NUMBERED_ABBREVIATIONS = frozenset(
    re.findall(r"\S+", "no nos nr fig figs eq eqs vol p pp sec ch art ref tab ver v")
)


class Sentence(msgspec.Struct, frozen=True):
    start: int  # offset inside the paragraph text
    end: int  # paragraph[start:end] == text, without surrounding whitespace
    text: str


class SpanChoice(msgspec.Struct, frozen=True):
    start: int  # offsets inside the paragraph text
    end: int
    text: str
    score: float  # weighted term coverage in [0, 1]
    sentence_indexes: tuple[int, ...]  # into split_sentences(text), contiguous


class Segment(msgspec.Struct, frozen=True):
    first: int  # index into the ordered paragraph list
    last: int  # inclusive
    score: float  # sum of (score - threshold) over the run


def forget_sentences() -> None:
    """Empty the cache of sentence splits (benchmarks that meet every text cold)."""
    _sentences.cache_clear()


# --- sentences -------------------------------------------------------------------------------


def split_sentences(text: str) -> list[Sentence]:
    """Sentences of a paragraph with exact offsets, in order.

    English ends (. ! ? before whitespace, not after abbreviations, inside decimals or
    versions), Chinese ends (。！？；) and the danda (।); Markdown list items, table rows and
    headings are units of their own, a fenced code block is one unit, a table's delimiter row
    is skipped.
    """
    return list(_sentences(text))


# Paragraph texts recur across questions (the same documents are read again and again), and
# splitting is pure: keep the recent results.
@paragraph_cache("text")
def _sentences(text: str) -> tuple[Sentence, ...]:
    sentences: list[Sentence] = []
    for start, body, end, whole in _units(text):
        pieces = [(start, end)] if whole else _prose_pieces(text, start, body, end)
        for piece_start, piece_end in pieces:
            sentence = _stripped(text, piece_start, piece_end)
            if sentence is not None:
                sentences.append(sentence)
    return tuple(sentences)


def _units(text: str) -> list[tuple[int, int, int, bool]]:
    """(start, body start, end, whole) of the line-level units: prose runs and list items are
    split further into sentences, whole units (fences, table rows, headings) are not."""
    lines = [(m.start(), m.end()) for m in re.finditer(r"[^\n]*\n?", text) if m.end() > m.start()]
    units: list[tuple[int, int, int, bool]] = []
    open_unit: list[int] | None = None  # [start, body, end] of the prose or list item being read
    in_table = False

    def close() -> None:
        nonlocal open_unit
        if open_unit is not None:
            units.append((open_unit[0], open_unit[1], open_unit[2], False))
            open_unit = None

    index = 0
    while index < len(lines):
        start, end = lines[index]
        line = text[start:end].rstrip("\r\n")
        next_line = text[slice(*lines[index + 1])] if index + 1 < len(lines) else ""
        index += 1
        if not line.strip():
            close()
            in_table = False
            continue
        fence = _FENCE.match(line)
        if fence:
            close()
            mark = fence.group(1)
            closing = re.compile(rf"^[ \t]{{0,3}}{re.escape(mark[0])}{{{len(mark)},}}[ \t]*$")
            while index < len(lines):  # an unclosed fence runs to the end of the text
                line_start, end = lines[index]
                index += 1
                if closing.match(text[line_start:end].rstrip("\r\n")):
                    break
            units.append((start, start, end, True))
            continue
        is_delimiter = "|" in line and _TABLE_DELIMITER.match(line) is not None
        starts_table = "|" in next_line and _TABLE_DELIMITER.match(next_line) is not None
        if (in_table or line.lstrip().startswith("|")) and is_delimiter:
            close()
            in_table = True
            continue
        if line.lstrip().startswith("|") or ("|" in line and (in_table or starts_table)):
            close()
            in_table = True
            units.append((start, start, end, True))
            continue
        in_table = False
        if _HEADING.match(line):
            close()
            units.append((start, start, end, True))
            continue
        item = _LIST_ITEM.match(line)
        if item:
            close()
            open_unit = [start, start + item.end(), end]
        elif open_unit is None:
            open_unit = [start, start, end]
        else:
            open_unit[2] = end
    close()
    return units


def _prose_pieces(text: str, start: int, body: int, end: int) -> list[tuple[int, int]]:
    """Split prose at sentence ends found after `body` (a list marker is never an end)."""
    pieces: list[tuple[int, int]] = []
    cursor = start
    for match in _TERMINATOR.finditer(text, body, end):
        if _ends_sentence(text, match.start(), match.end(), body, end):
            pieces.append((cursor, match.end()))
            cursor = match.end()
    pieces.append((cursor, end))
    return pieces


def _ends_sentence(text: str, mark: int, after: int, lower: int, upper: int) -> bool:
    punctuation = text[mark:after].rstrip(_CLOSERS)
    if any(ch in _CJK_STOPS for ch in punctuation):
        return True
    following = text[after] if after < upper else ""
    if following and not (following.isspace() or _CJK_CHAR.match(following)):
        return False  # 0.10, v1.2, HTTP/1.1, example.com, "?q=1"
    if punctuation.strip(".…"):
        return True  # ! or ? before whitespace
    rest = text[after:upper].lstrip()
    next_char = rest[:1]
    if next_char.isascii() and next_char.islower():
        return False  # a sentence does not start in lower case: "etc. and", "approx. ten"
    word = _word_before(text, mark, lower).lower()
    if word in _ABBREVIATIONS:
        return False
    return not (word in _NUMBERED_ABBREVIATIONS and next_char.isdigit())


def _word_before(text: str, index: int, lower: int) -> str:
    """The ASCII letters (with inner dots, as in "e.g") right before `index`, or ""."""
    begin = index
    while begin > lower and (
        (text[begin - 1].isascii() and text[begin - 1].isalpha()) or text[begin - 1] == "."
    ):
        begin -= 1
    if begin > lower and (text[begin - 1].isalnum() or text[begin - 1] == "_"):
        return ""  # part of a longer token such as "1st"
    return text[begin:index].strip(".")


def _stripped(text: str, start: int, end: int) -> Sentence | None:
    piece = text[start:end]
    left = len(piece) - len(piece.lstrip())
    right = len(piece.rstrip())
    if right <= left:
        return None
    return Sentence(start + left, start + right, piece[left:right])


# --- best span -------------------------------------------------------------------------------


class _Term(msgspec.Struct, frozen=True):
    weight: float
    units: tuple[tuple[str, _Matcher], ...]  # what must occur; credit = share found


def best_span(
    text: str, terms: Sequence[str], *, max_sentences: int = 2, max_chars: int = 600
) -> SpanChoice:
    """The best-matching sentence, extended to adjacent sentences that add matched terms.

    Score is weighted term coverage in [0, 1]. Ties go to the earliest sentence; a text without
    any match yields its first sentence with score 0. The extension stays contiguous, within
    `max_sentences` and within `max_chars` (one sentence alone may be longer).
    """
    if max_sentences < 1 or max_chars < 1:
        raise ValueError("max_sentences and max_chars must be at least 1")
    sentences = split_sentences(text)
    if not sentences:
        return SpanChoice(0, 0, "", 0.0, ())
    compiled = _compile_terms(terms)
    found = [_found(sentence.text, compiled) for sentence in sentences]
    scores = [_coverage(compiled, hits) for hits in found]
    best = max(range(len(sentences)), key=lambda i: (scores[i], -i))
    lo = hi = best
    hits = set(found[best])
    score = scores[best]
    while score > 0 and hi - lo + 1 < max_sentences:
        options: list[tuple[float, int, int]] = []
        for lo2, hi2, new in ((lo - 1, hi, lo - 1), (lo, hi + 1, hi + 1)):
            if 0 <= new < len(sentences) and sentences[hi2].end - sentences[lo2].start <= max_chars:
                gained = _coverage(compiled, hits | found[new])
                if gained > score:
                    options.append((gained, lo2, hi2))
        if not options:
            break
        score, lo, hi = max(options, key=lambda option: (option[0], -option[1]))
        hits |= found[lo] | found[hi]
    start, end = sentences[lo].start, sentences[hi].end
    return SpanChoice(start, end, text[start:end], score, tuple(range(lo, hi + 1)))


def mentions_any(text: str, terms: Sequence[str]) -> bool:
    """Whether any word of any term occurs in the text at all, even inside a longer word.
    Without one, every sentence of the text scores 0 in best_span: callers that rank many
    paragraphs skip splitting those."""
    lower = text.lower()
    return any(key in lower for key in term_keys(terms))


def term_keys(terms: Sequence[str]) -> tuple[str, ...]:
    """What `mentions_any` looks for: lower-case strings, one of which occurs in any text a
    term matches (compile once, test many texts)."""
    return tuple(key for term in _compile_terms(terms) for key, _ in term.units)


def _compile_terms(terms: Sequence[str]) -> tuple[_Term, ...]:
    compiled: list[_Term] = []
    for term in dict.fromkeys(t.strip().lower() for t in terms):
        if not term:
            continue
        units: list[tuple[str, _Matcher]] = []
        if _CJK_CHAR.search(term):
            # Chinese has no spaces: a term matches by its bigrams (a full substring match
            # contains them all), plus any Latin words written inside it ("neo4j图数据库").
            units += [(gram, re.compile(re.escape(gram))) for gram in cjk_bigrams(term)]
            words = re.findall(r"[^\W_]+(?:[\-./][^\W_]+)*", _CJK_RUN.sub(" ", term))
            units += [(word, _word_pattern(word)) for word in words]
        else:
            units.append((term, _word_pattern(term)))
        weight = 0.5 if len(term) == 1 else 1.0  # a single character matches almost anywhere
        compiled.append(_Term(weight, tuple(dict.fromkeys(units))))
    return tuple(compiled)


class _WordPattern:
    """A whole-word, case-insensitive match without compiling a regex per term (compiling the
    Unicode word class for every new question term cost ~5-12 ms each)."""

    __slots__ = ("word",)

    def __init__(self, word: str) -> None:
        self.word = word.lower()

    def search(self, text: str) -> bool:
        haystack = text.lower()
        start = haystack.find(self.word)
        while start >= 0:
            end = start + len(self.word)
            before = haystack[start - 1] if start else " "
            after = haystack[end] if end < len(haystack) else " "
            if not _IS_WORD_CHAR.match(before) and not _IS_WORD_CHAR.match(after):
                return True
            start = haystack.find(self.word, start + 1)
        return False


_IS_WORD_CHAR = re.compile(_WORD_CHAR)


def _word_pattern(word: str) -> _WordPattern:
    return _WordPattern(word)


def _found(sentence: str, terms: tuple[_Term, ...]) -> frozenset[tuple[int, str]]:
    return frozenset(
        (index, key)
        for index, term in enumerate(terms)
        for key, pattern in term.units
        if pattern.search(sentence)
    )


def _coverage(
    terms: tuple[_Term, ...], hits: set[tuple[int, str]] | frozenset[tuple[int, str]]
) -> float:
    total = sum(term.weight for term in terms)
    if not total:
        return 0.0
    covered = sum(
        term.weight * sum(1 for key, _ in term.units if (index, key) in hits) / len(term.units)
        for index, term in enumerate(terms)
    )
    return covered / total


def cjk_bigrams(text: str) -> list[str]:
    """Character bigrams of each CJK run in order, without duplicates; a one-character run
    stands for itself. Non-CJK text is ignored."""
    grams: list[str] = []
    for run in _CJK_RUN.findall(text):
        grams += [run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)]
    return list(dict.fromkeys(grams))


# --- citation ids and segments ---------------------------------------------------------------


def citation_id(paragraph_id: str, start: int, end: int) -> str:
    """Stable id of a span: equal (paragraph, offsets) give equal ids across runs."""
    digest = hashlib.sha256()
    for part in (paragraph_id, str(start), str(end)):
        digest.update(part.encode("utf-8"))
        digest.update(b"\x00")
    return "c_" + digest.hexdigest()[:16]


def relevant_segments(
    scores: Sequence[float], *, threshold: float, max_length: int = 6, max_segments: int = 3
) -> list[Segment]:
    """Best contiguous runs of one document's paragraphs (reading order), best first.

    Each paragraph is worth `score - threshold`; runs are chosen greedily by greatest sum, at
    most `max_length` long, never overlapping, beginning and ending on a positive paragraph.
    Runs whose sum is not positive are never returned.
    """
    if max_length < 1 or max_segments < 1:
        raise ValueError("max_length and max_segments must be at least 1")
    values = [score - threshold for score in scores]
    taken = [False] * len(values)
    segments: list[Segment] = []
    while len(segments) < max_segments:
        best: Segment | None = None
        for first, value in enumerate(values):
            if taken[first] or not value > 0:  # `not >` also skips NaN
                continue
            total = 0.0
            for last in range(first, min(len(values), first + max_length)):
                if taken[last]:
                    break
                total += values[last]
                if best is None or total > best.score:  # a non-positive tail never wins
                    best = Segment(first, last, total)
        if best is None:
            break
        segments.append(best)
        for index in range(best.first, best.last + 1):
            taken[index] = True
    return segments
