"""The evidence sentences of a context pack, with exact source offsets, and their public text.

Every public answer sentence is taken from one EvidenceSentence: a sentence (or a Mermaid edge
line) of a paragraph that a pack fragment shows the model. Its `quote` is the exact source text
(`source[start:end] == quote`, since a paragraph's text is the source between its offsets), its
`text` the same sentence made readable: Markdown marks and source-authored labels
(Prerequisite:, Mechanism:, Failure mode:) stripped, step labels (Step 1:) kept, Mermaid edges
turned into plain statements. Prompt residue and pages describing themselves never qualify.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Mapping
from typing import Any

import msgspec

from service.pipeline.context_pack import RagContextPack
from service.pipeline.evidence import Fragment
from service.text.spans import citation_id, split_sentences
from service.text.text_cache import paragraph_cache

__all__ = [
    "EvidenceSentence",
    "evidence_sentences",
    "forget_public_texts",
    "is_artifact",
    "leaks_diagnostics",
    "mermaid_statement",
    "public_text",
]

Row = Mapping[str, Any]

_LABEL = re.compile(
    r"^(?:prerequisites?|mechanism|failure modes?|failure handling|graph caveat|caveat|"
    r"consequence|downstream(?: check)?|boundary|verification|check|cause|effect|note|warning|"
    r"tip|result|requirement)\s*[:：]\s*",
    re.IGNORECASE,
)
_STEP = re.compile(r"^(?:step\s*\d+\s*[:.)]|\d{1,2}[.)]\s)", re.IGNORECASE)
_LIST = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])\s+")
_EMPHASIS = re.compile(r"\*\*|__|(?<!\w)[*_](?=\S)|(?<=\S)[*_](?!\w)|`")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+")
_QUOTE = re.compile(r"^\s*>\s?", re.MULTILINE)
# Prompt and preamble residue: instructions to a model or a model's reply to them. They are never
# evidence, whatever the source document says around them.
_ARTIFACT = re.compile(
    r"all reasoning|final output|output language|show (?:your|all) (?:work|reasoning)|"
    r"ignore (?:all |any )?(?:previous|prior|above) instructions|system prompt|"
    r"\bas an ai\b|\blanguage model\b|here is (?:the|your) (?:answer|summary)|"
    r"遵从您的指示|最终输出|所有推理过程|推理过程|以下为|作为(?:一个)?(?:AI|人工智能)",
    re.IGNORECASE,
)
# A page talking about itself or its upkeep, not about the subject. "The page shows a counter"
# (a web page in the product) and "The document feeder holds 50 sheets" are about the subject.
_META = re.compile(
    r"^this (?:page|document|note|article|collection|section|file|list)\b|"
    r"^the (?:page|document|note|article|collection|section|file|list) (?:is|was) "
    r"(?:maintained|kept|written|edited|updated|collected|compiled)\b|"
    r"\bmaintained by\b|\breaders are welcome\b|\bsuggest corrections\b|\bthis page\b",
    re.IGNORECASE,
)
# Internal names of the pipeline that must never reach the public answer.
_DIAGNOSTICS = re.compile(
    r"ragContextPack|replayId|fragment_dropped|fragment_truncated|source_window_unavailable|"
    r"direct_support|parent_context|adjacent_context|graph_neighbor_support|llm_judge|"
    r"ragSufficiencyReview|answerReleaseReview|ragRecovery",
    re.IGNORECASE,
)
_MERMAID_EDGE = re.compile(
    r"(?P<a>[A-Za-z0-9_]+)(?:\[(?P<al>[^\]]*)\]|\((?P<ap>[^)]*)\))?\s*"
    r"-{1,2}\.?-*>?\s*(?:\|(?P<label>[^|]*)\|)?\s*"
    r"(?P<b>[A-Za-z0-9_]+)(?:\[(?P<bl>[^\]]*)\]|\((?P<bp>[^)]*)\))?"
)
_FENCE_LINE = re.compile(r"^\s*(?:```|~~~)")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}")


class EvidenceSentence(msgspec.Struct, frozen=True, kw_only=True):
    quote: str  # exact source text: source[start:end]
    text: str  # public form (see module docstring); "" when it must not be published
    start: int  # absolute source offsets
    end: int
    # The same offsets in UTF-16 code units (JavaScript's and Java's string indexes); None when
    # the paragraph was written before kgs stored its UTF-16 start.
    utf16_start: int | None = None
    utf16_end: int | None = None
    line: int  # 1-based source line of `start`
    end_line: int
    paragraph_id: str
    citation_id: str
    fragment_id: str
    role: str
    document_id: str
    document_version: int | None  # the head version the quote was read from
    path: str
    heading_path: tuple[str, ...]
    knowledge_point_id: str | None
    relation: str | None
    kind: str  # paragraph kind: paragraph, list, table, mermaid, ...
    order: int  # position in the pool: pack order, then reading order
    label: str  # the source-authored label stripped from it ("prerequisite", ...), or ""
    step: int | None  # "Step 3:" -> 3
    # Inside a whole procedure's fragment: the step it belongs to (1-based; 0 before the first
    # step, the prerequisites); None elsewhere.
    procedure_step: int | None = None
    # Where a converted document printed it: the PDF page, the HTML anchor (ingest/origin.py).
    page: int | None = None
    anchor: str | None = None


def evidence_sentences(
    pack: RagContextPack, paragraphs: Iterable[Row]
) -> tuple[EvidenceSentence, ...]:
    """The sentences every admitted fragment shows, first occurrence wins (pack order)."""
    by_document: dict[str, list[Row]] = {}
    for row in paragraphs:
        by_document.setdefault(str(row["documentId"]), []).append(row)
    pool: list[EvidenceSentence] = []
    seen: set[tuple[str, int, int]] = set()
    for fragment in pack.fragments:
        for row in by_document.get(fragment.document_id, []):
            start, end = int(row["startOffset"]), int(row["endOffset"])
            if end <= fragment.start_offset or start >= fragment.end_offset:
                continue
            for sentence in _row_sentences(row, fragment):
                key = (fragment.document_id, sentence.start, sentence.end)
                if key in seen:
                    continue
                seen.add(key)
                pool.append(msgspec.structs.replace(sentence, order=len(pool)))
    return tuple(pool)


def sentence_page(page_first: int | None, page_starts: list[int] | None, offset: int) -> int | None:
    """The PDF page a sentence `offset` characters into its paragraph was printed on:
    `pageStarts` holds where each later page begins inside the paragraph (ingest/origin.py)."""
    if page_first is None:
        return None
    return page_first + bisect.bisect_right(page_starts or [], offset)


def _prose_sentences(text: str) -> list[tuple[int, int, str]]:
    """The sentences of prose, a piece that cannot open a sentence joined to the one before it:
    text tokenised with a space before its commas ("Every day at 11: 00 a.m. , the ducks are
    escorted ...") is split after "a.m.", and a quote that opens with a comma reads as broken
    and leaves its time in another sentence; the splitter also ends a sentence after a name's
    initial ("General Robert E." / "Lee surrendered ..."), which a quote must not cut."""
    joined: list[tuple[int, int, str]] = []
    for s in split_sentences(text):
        if joined and (
            _CONTINUATION.match(s.text)
            or _initial_before(
                text[joined[-1][0] : joined[-1][1]], text[joined[-1][1] : s.start], s.text
            )
        ):
            joined[-1] = (joined[-1][0], s.end, "")
        else:
            joined.append((s.start, s.end, ""))
    return joined


_CONTINUATION = re.compile(r"[,;:)\]]")
# A name's middle initial ends no sentence: "... when General Robert E." / "Lee surrendered
# ...". A capitalised word inside the sentence (not its first: "Vitamin C." may end one), then
# initials (not the numerals I, V, X: "World War I."); the next piece, on the same line, opens
# with a name, not with a word that opens sentences or a step ("Select Port B. Step 2: ...").
_INITIAL_END = re.compile(r"\S\s+(?P<word>[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+)(?:\s+[A-HJ-UWYZÀ-ÖØ-Þ]\.)+$")
_NAME_START = re.compile(r"[A-ZÀ-ÖØ-Þ][\w'’-]*")
_SENTENCE_OPENERS = frozenset(
    re.findall(
        r"\S+",
        "the a an it its this that these those there he she they his her their we our you your "
        "i in on at after before when while as if but and or so thus however then yet",
    )
)
# Words that label one of several things by a letter ("Port B.", "Plan B.", "Appendix C."): a
# letter after them is no initial, and manuals go on with an instruction ("Wait ten seconds.").
_LETTER_LABELS = frozenset(
    re.findall(
        r"\S+",
        "port mode option button key plan grade type class level zone gate room part figure table "
        "appendix annex section phase stage model size group team row column line tray slot "
        "channel terminal side wing block building exit platform track bay area unit vitamin",
    )
)


def _initial_before(previous: str, gap: str, text: str) -> bool:
    """Whether the piece `text` goes on from `previous`, cut after a name's initial; `gap`: the
    source between them."""
    if "\n" in gap or _STEP.match(text):
        return False
    first, end = _NAME_START.match(text), _INITIAL_END.search(previous)
    return bool(
        first and end
        and first.group(0).lower() not in _SENTENCE_OPENERS
        and end.group("word").lower() not in _LETTER_LABELS
    )  # fmt: skip


def _row_sentences(row: Row, fragment: Fragment) -> list[EvidenceSentence]:
    text, kind = str(row["text"]), str(row["kind"])
    base, line = int(row["startOffset"]), int(row["startLine"])
    pieces: list[tuple[int, int, str]] = []
    if kind == "mermaid":
        offset = 0
        for raw in text.split("\n"):
            readable = mermaid_statement(raw)
            if readable:
                lead = len(raw) - len(raw.lstrip())
                pieces.append((offset + lead, offset + len(raw.rstrip()), readable))
            offset += len(raw) + 1
    elif kind == "code":
        return []
    elif kind == "table":
        pieces = _table_rows(text)
    else:
        pieces = _prose_sentences(text)
    out = []
    # UTF-16 offsets walk forward with the pieces (which come in text order), so a paragraph's
    # text is encoded at most about once, and only for the sentences a fragment admits.
    utf16_base: int | None = row.get("utf16Start")
    walked = walked_units = 0
    for lo, hi, readable in pieces:
        absolute = (base + lo, base + hi)
        if absolute[1] <= fragment.start_offset or absolute[0] >= fragment.end_offset:
            continue
        quote = text[lo:hi]
        if fragment.truncated and quote not in fragment.text:
            continue  # cut from the middle of a truncated fragment: the model never saw it
        utf16: tuple[int, int] | tuple[None, None] = (None, None)
        if utf16_base is not None:
            if lo < walked:
                walked = walked_units = 0
            walked_units += _utf16_length(text[walked:lo])
            walked = lo
            start16 = utf16_base + walked_units
            utf16 = (start16, start16 + _utf16_length(quote))
        label = _label(quote)
        public = readable or public_text(quote)
        step_match = re.match(r"^\s*(?:[-*+]\s*)?\**step\s*(\d+)", quote, re.IGNORECASE)
        out.append(
            EvidenceSentence(
                quote=quote,
                text=public,
                start=absolute[0],
                end=absolute[1],
                utf16_start=utf16[0],
                utf16_end=utf16[1],
                line=line + text.count("\n", 0, lo),
                end_line=line + text.count("\n", 0, hi),
                paragraph_id=str(row["paragraphId"]),
                citation_id=citation_id(str(row["paragraphId"]), lo, hi),
                fragment_id=fragment.id,
                role=fragment.role,
                document_id=fragment.document_id,
                document_version=row.get("documentVersion"),
                path=fragment.path,
                heading_path=tuple(row["headingPath"] or ()),
                knowledge_point_id=fragment.knowledge_point_id,
                relation=fragment.relation,
                kind=kind,
                order=0,
                label=label,
                step=int(step_match.group(1)) if step_match else None,
                procedure_step=bisect.bisect_right(fragment.step_starts, absolute[0])
                if fragment.step_starts
                else None,
                page=sentence_page(row.get("pageFirst"), row.get("pageStarts"), lo),
                anchor=row.get("anchor"),
            )
        )
    return out


def _utf16_length(text: str) -> int:
    """Length in UTF-16 code units: a character beyond U+FFFF (an emoji, 𝔘) counts two. (Ingest
    has its own, ingest/units.py; the answer layer does not import ingestion for one line.)"""
    return len(text) if text.isascii() else len(text.encode("utf-16-le", "surrogatepass")) // 2


# The same paragraphs come back question after question, and these two are pure: keep them.


@paragraph_cache("function")
def public_text(quote: str) -> str:
    """A source sentence as it may appear in the public answer; "" when it must not."""
    text = _QUOTE.sub("", quote)
    text = _HEADING.sub("", text)
    text = _LIST.sub("", text)
    text = _EMPHASIS.sub("", text)
    text = " ".join(text.split())
    # NQ-style tokenised text: "Buccaneers , the" -> "Buccaneers, the"
    text = re.sub(r"\s+([,.;:!?)\]])(?=\s|$)", r"\1", text)  # not "the .nhf file"
    text = re.sub(r"([(\[])\s+", r"\1", text)
    if not _STEP.match(text):
        text = _LABEL.sub("", text)
    text = text.strip()
    if not text or is_artifact(text) or _META.search(text) or leaks_diagnostics(text):
        return ""
    if _FENCE_LINE.match(text) or "-->" in text:
        return ""
    return text[0].upper() + text[1:]


def forget_public_texts() -> None:
    """Empty the caches of public texts and labels (benchmarks that meet every text cold)."""
    public_text.cache_clear()
    _label.cache_clear()


def is_artifact(text: str) -> bool:
    return bool(_ARTIFACT.search(text))


def leaks_diagnostics(text: str) -> bool:
    return bool(_DIAGNOSTICS.search(text))


@paragraph_cache("function")
def _label(quote: str) -> str:
    stripped = _EMPHASIS.sub("", _LIST.sub("", quote)).strip()
    match = _LABEL.match(stripped)
    if not match:
        return ""
    return match.group(0).rstrip(" :：").lower()


def mermaid_statement(line: str) -> str:
    """`W[Water glass] -->|contrasts with| P[Plastic cup]` -> 'Water glass contrasts with
    Plastic cup.'; anything else in a Mermaid block (the header, styles) -> ''."""
    match = _MERMAID_EDGE.search(line)
    if not match or "--" not in line:
        return ""
    a = (match.group("al") or match.group("ap") or match.group("a")).strip()
    b = (match.group("bl") or match.group("bp") or match.group("b")).strip()
    label = (match.group("label") or "leads to").strip()
    if not a or not b or is_artifact(label):
        return ""
    return f"{a} {_predicate(label)} {_in_sentence(b)}."


def _predicate(label: str) -> str:
    """An edge label as an English predicate: a verb stays ('contrasts with', 'precedes'); an
    adjective, noun or participle gets its copula ('analogous to' -> 'is analogous to', 'part
    of' -> 'is part of'). A verb of a label is taken to end in -s (third person), as edge labels
    are written; -ous and -ss words are adjectives and nouns. Labels in other scripts stay."""
    first = label.split()[0] if label.split() else ""
    if not first.isascii() or not first.isalpha():
        return label
    lowered = first.lower()
    verb = lowered.endswith("s") and not lowered.endswith(("ous", "ss", "vs"))
    return label if verb or lowered in ("is", "are", "was", "has") else f"is {label}"


def _in_sentence(name: str) -> str:
    """A node's name inside a sentence: a capitalised common name of several words is written
    in lower case ('Soda-lime glass' -> 'soda-lime glass'); one word, or any other capital, may
    be a proper name or an acronym and stays as written."""
    words = name.split()
    first = words[0] if words else ""
    common = (
        len(words) > 1 and first[:1].isupper() and first[1:] == first[1:].lower()
        and all(w == w.lower() for w in words[1:])
    )  # fmt: skip
    return first[:1].lower() + name[1:] if common else name


def _table_rows(text: str) -> list[tuple[int, int, str]]:
    """Body rows of a Markdown table as 'Header: a; Column: b' statements, one per row."""
    lines = text.split("\n")
    offsets, position = [], 0
    for raw in lines:
        offsets.append(position)
        position += len(raw) + 1
    cells = [[c.strip() for c in raw.strip().strip("|").split("|")] for raw in lines]
    if len(lines) < 3 or not _TABLE_RULE.match(lines[1]):
        return []
    header = cells[0]
    rows = []
    for index in range(2, len(lines)):
        row = cells[index]
        if len(row) != len(header) or not any(row):
            continue
        parts = [f"{h}: {v}" for h, v in zip(header[1:], row[1:], strict=True) if h and v]
        if not row[0] or not parts:
            continue
        readable = public_text(f"{row[0]} — " + "; ".join(parts) + ".")
        raw = lines[index]
        lead = len(raw) - len(raw.lstrip())
        rows.append((offsets[index] + lead, offsets[index] + len(raw.rstrip()), readable))
    return rows
