"""Extraction over whole documents: every passage's facts, numbered in reading order, cached per
paragraph, and bound back from the analysis stored per paragraph at ingest
(service/text/analysis.py)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import msgspec

from service.text.analysis import (
    ANALYSIS_VERSION,
    FactKind,
    Scope,
    StoredFact,
    TextAnalysis,
    decode_analysis,
    encode_analysis,
    pack_offsets,
)
from service.text.facts.aligned import (
    _NOT_ALIGNED_KINDS,
    _SKIPPED_KINDS,
    _aligned_facts,
    _is_number,
    norm_token,
)
from service.text.facts.attributes import normalise_value, sentence_facts
from service.text.facts.conditions import condition_clauses, condition_scope
from service.text.facts.instructions import is_instruction
from service.text.facts.model import (
    NO_TOKENS,
    Fact,
    FactSettings,
    NodeFact,
    ParagraphTokens,
    Passage,
)
from service.text.facts.qualifiers import qualifiers
from service.text.facts.words import WordToken, _passage_tokens, _text_anchors, _text_tokens
from service.text.spans import split_sentences
from service.text.text_cache import paragraph_cache

__all__ = [
    "FactHead",
    "bind_facts",
    "edit_fact",
    "extract_facts",
    "fact_heads",
    "forget_facts",
    "frame_halves",
    "paragraph_analysis",
]

# --- extraction over passages ----------------------------------------------------------------


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
        found = _passage_heads(passage, settings)[: settings.max_facts_per_document - kept]
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


def _passage_heads(
    passage: Passage, settings: FactSettings
) -> Sequence[NodeFact | StoredFact | Fact]:
    """What a passage's facts are grouped by: its Fact nodes when they were read with it
    (written with the default settings), else its facts decoded or extracted."""
    if passage.facts is not None and settings == _DEFAULT_SETTINGS:
        return passage.facts
    return _unbound_facts(passage, settings)


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
@paragraph_cache("text")
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
