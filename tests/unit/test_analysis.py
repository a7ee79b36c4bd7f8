"""The text analysis stored at ingest: it must say exactly what computing from the text says,
and anything stale, unreadable or computed under other settings must be ignored."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from ingest.markdown import parse_markdown
from service.pipeline.conflicts import scan_conflicts
from service.text.analysis import (
    ANALYSIS_VERSION,
    StoredFact,
    TextAnalysis,
    decode_analysis,
    encode_analysis,
    pack_offsets,
)
from service.text.facts import (
    FactSettings,
    ParagraphTokens,
    Passage,
    document_profiles,
    document_vocabularies,
    document_words,
    extract_facts,
    forget_facts,
    paragraph_analysis,
)
from service.text.spans import forget_sentences

_KB = Path(__file__).resolve().parents[2] / "knowledge_base"
# Conflicting, qualified and edited statements beside the shipped knowledge base's prose.
_EXTRA = [
    "The calibration tolerance is ±0.10 mm. The calibration tolerance is ±0.50 mm.",
    "The release date is 2026-07-01 [3]. In the staging environment the retry limit is 5.",
    "Hill was born on 24 February 1919 in Leeds. The academy takes its name from the river.",
    "Hill was born on 12 March 1920 in Leeds. The university takes its name from the river.",
    "| Setting | Value |\n|---|---|\n| retry limit | 3 |",
]


def _texts() -> list[tuple[str, str]]:
    texts = [(text, "paragraph") for text in _EXTRA]
    for path in sorted(_KB.rglob("*.md")):
        texts += [(b.text, b.kind) for b in parse_markdown(path.read_text("utf-8")).blocks]
    return texts


def _passages(texts: list[tuple[str, str]], *, stored: bool) -> list[Passage]:
    return [
        Passage(
            document_id=f"d{i % 5}", path=f"doc{i % 5}.md", paragraph_id=f"p{i}", text=text,
            start_offset=10 * i, start_line=1 + i, kind=kind,
            analysis=paragraph_analysis(text, kind) if stored else b"",
        )
        for i, (text, kind) in enumerate(texts)
    ]  # fmt: skip


@pytest.fixture(autouse=True)
def _cold() -> None:
    forget_facts()
    forget_sentences()


def test_stored_analysis_equals_computing_from_the_text() -> None:
    texts = _texts()
    assert len(texts) > 500  # the shipped knowledge base is there
    computed, stored = _passages(texts, stored=False), _passages(texts, stored=True)

    facts = extract_facts(computed)
    assert any(f.kind == "aligned" for f in facts) and any(f.kind != "aligned" for f in facts)
    forget_facts()
    assert extract_facts(stored) == facts
    assert document_profiles(stored) == document_profiles(computed)
    assert document_words(stored, 3000) == document_words(computed, 3000)
    forget_facts()
    scan = scan_conflicts(computed)
    assert scan.conflicts
    forget_facts()
    assert scan_conflicts(stored) == scan


@pytest.mark.parametrize("limit", [3000, 400, 1])
def test_vocabularies_hold_exactly_the_words_document_words_reads(limit: int) -> None:
    """The near-copy test's first bound stands only if each vocabulary covers the very tokens
    the word lists hold, cut at the same limit."""
    passages = _passages(_texts(), stored=True)
    words = document_words(passages, limit)
    vocabularies = document_vocabularies(passages, limit)
    assert vocabularies == {d: (set(w.norms), len(w.norms)) for d, w in words.items()}
    if limit < 3000:  # some document is cut at the limit
        assert max(count for _, count in vocabularies.values()) == limit


def test_paragraph_tokens_cut_the_text_where_they_are_read() -> None:
    text = "Hill [2] was born in 1919."
    offsets = (0, 4, 9, 12, 13, 17, 18, 20, 21, 25)  # "[2]" is no token
    tokens = ParagraphTokens(("hill", "was", "born", "in", "1919"), text, offsets)
    assert len(tokens) == 5 and tokens[0] == "Hill" and tokens[-1] == "1919"
    assert tokens[1:3] == ("was", "born") and tokens[3:99] == ("in", "1919") and tokens[4:2] == ()
    with pytest.raises(IndexError):
        tokens[5]
    same = ParagraphTokens(["hill", "was", "born", "in", "1919"], text, list(offsets))
    assert tokens == same and hash(tokens) == hash(same)
    assert tokens != ParagraphTokens(tokens.norms, text.replace("1919", "1920"), offsets)


def test_stale_or_unreadable_analysis_is_computed_again() -> None:
    text = "The retry limit is 3."
    wrong = StoredFact(kind="quantity", subject="retry limit", key="quantity:retry limit",
                       norm="9", scope=(), sentence_start=0, sentence_end=len(text),
                       value_start=19, value_end=20, token_start=0, token_end=0)  # fmt: skip

    def norms(data: bytes) -> list[str]:
        forget_facts()
        passage = Passage(document_id="d", path="a.md", paragraph_id="p", text=text,
                          start_offset=0, start_line=1, analysis=data)  # fmt: skip
        return [f.norm for f in extract_facts([passage])]

    old = TextAnalysis(version="not-" + ANALYSIS_VERSION, words="", offsets=b"", anchors=(),
                       facts=(wrong,))  # fmt: skip
    current = msgspec.structs.replace(old, version=ANALYSIS_VERSION)
    assert norms(encode_analysis(current)) == ["9"]  # proof that a current analysis is read
    assert norms(encode_analysis(old)) == ["3"]
    assert norms(b"\x93not msgpack") == ["3"]
    assert decode_analysis(b"") is None


def test_other_fact_settings_ignore_the_stored_facts() -> None:
    text = "The old harbour master said the pier at Dunmore was built in 1832 by the council."
    narrow = FactSettings(aligned_context_tokens=1)

    def frames(data: bytes) -> list[str]:
        forget_facts()
        passage = Passage(document_id="d", path="a.md", paragraph_id="p", text=text,
                          start_offset=0, start_line=1, analysis=data)  # fmt: skip
        return [f.key for f in extract_facts([passage], narrow)]

    assert frames(paragraph_analysis(text, "paragraph")) == frames(b"")
    assert frames(b"") != [f.key for f in extract_facts(_passages([(text, "paragraph")],
                                                                    stored=True))]  # fmt: skip


def test_skipped_kinds_store_no_facts() -> None:
    stored = decode_analysis(paragraph_analysis("x = 1  # the retry limit is 3", "code"))
    assert stored is not None and stored.facts == ()


def test_words_and_offsets_must_agree() -> None:
    good = TextAnalysis(version=ANALYSIS_VERSION, words="retry limit", offsets=pack_offsets(
        [0, 5, 6, 11]), anchors=(), facts=())  # fmt: skip
    assert decode_analysis(encode_analysis(good)).norms == ("retry", "limit")  # type: ignore[union-attr]
    for words in ("retry", "retry  limit", "retry limit 3", " retry"):
        with pytest.raises(ValueError):
            encode_analysis(msgspec.structs.replace(good, words=words))
