"""KGS_TEXT_CACHE_BYTES bounds the per-paragraph text caches together, KGS_FUNCTION_CACHE_BYTES
the short texts' function results; the budgets apply when an entry point configures them, caches
driven past them stay within them, and bad values are refused."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from service.settings import Settings, SettingsError, TextCacheSettings
from service.text import spans, text_cache
from service.text.facts import Passage, extraction, words
from service.text.relation_labels import compact_key

_BUDGETS = [("KGS_TEXT_CACHE_BYTES", 64 * 2**20), ("KGS_FUNCTION_CACHE_BYTES", 8 * 2**20)]
_FIELDS = {"KGS_TEXT_CACHE_BYTES": "text_bytes", "KGS_FUNCTION_CACHE_BYTES": "function_bytes"}


class _Holder:
    def __init__(self, text: str) -> None:
        self.text = text


@pytest.fixture(autouse=True)
def _default_budgets() -> Iterator[None]:
    yield
    text_cache.configure_text_caches(TextCacheSettings())


def _stats(kind: text_cache.CacheKind) -> text_cache.CacheStats:
    return next(s for s in text_cache.cache_stats() if s.kind == kind)


def test_every_kind_takes_its_configured_budget() -> None:
    text_cache.configure_text_caches(TextCacheSettings(text_bytes=70_000, function_bytes=5_000))
    assert _stats("text").budget_bytes == 70_000 and _stats("text").entries == 0
    assert _stats("function").budget_bytes == 5_000
    assert spans.split_sentences("One. Two.") == spans.split_sentences("One. Two.")
    assert _stats("text").hits >= 1 and _stats("text").entries >= 1  # still a working cache


def test_caches_driven_past_their_budget_stay_within_it_and_keep_the_recent_entries() -> None:
    budget = 60_000
    text_cache.configure_text_caches(TextCacheSettings(text_bytes=budget))
    texts = [f"Paragraph {i} holds a sentence. It has a second one about item {i}."
             for i in range(400)]  # fmt: skip
    for text in texts:
        spans.split_sentences(text)
        words._text_tokens(text)
        extraction.extract_facts(
            [
                Passage(
                    document_id="d",
                    path="d.md",
                    paragraph_id=text,
                    text=text,
                    start_offset=0,
                    start_line=1,
                )
            ]
        )
    stats = _stats("text")
    assert 0 < stats.bytes <= budget
    assert stats.entries < 3 * len(texts)  # the oldest ones went
    misses = stats.misses
    spans.split_sentences(texts[-1])  # the most recent entry is still held
    assert _stats("text").misses == misses
    spans.split_sentences(texts[0])  # the oldest is not
    assert _stats("text").misses == misses + 1


def test_function_results_are_bounded_in_bytes_and_counted_per_function() -> None:
    budget = 20_000
    text_cache.configure_text_caches(TextCacheSettings(function_bytes=budget))
    keys = [compact_key(f"Term number {i}") for i in range(2_000)]
    assert keys[5] == "termnumber5"
    stats = _stats("function")
    assert 0 < stats.bytes <= budget and stats.entries < len(keys)
    entries, held = compact_key.cache_held()
    assert entries == stats.entries and held == stats.bytes  # only compact_key ran
    assert compact_key("Term number 1999") == "termnumber1999"
    assert _stats("function").hits == stats.hits + 1  # the most recent is still held


def test_an_entry_larger_than_the_budget_is_not_kept() -> None:
    text_cache.configure_text_caches(TextCacheSettings(text_bytes=1_000))
    long = " ".join(f"Sentence number {i} is here." for i in range(200))
    spans.split_sentences(long)
    assert _stats("text").bytes == 0 and _stats("text").entries == 0


def test_clearing_one_cache_keeps_the_others_entries() -> None:
    text_cache.configure_text_caches(TextCacheSettings())
    spans.split_sentences("Alpha. Beta.")
    words._text_tokens("Alpha. Beta.")
    before = _stats("text")
    spans.forget_sentences()
    after = _stats("text")
    assert after.entries == before.entries - 1 and after.bytes < before.bytes


def test_the_size_estimate_counts_nested_objects() -> None:
    flat = text_cache.approximate_size(("a", "b"))
    nested = text_cache.approximate_size((("a", "b"), ["c" * 1000]))
    assert nested > flat + 1000
    # Neither a container nor a Struct: its own size, what it refers to left uncounted.
    holder = _Holder("c" * 1000)
    assert text_cache.approximate_size(holder) == sys.getsizeof(holder)


@pytest.mark.parametrize(("env", "default"), _BUDGETS)
def test_the_budget_comes_from_the_environment(env: str, default: int) -> None:
    field = _FIELDS[env]
    assert getattr(Settings.from_env({}).text_cache, field) == default
    assert getattr(Settings.from_env({env: "65536"}).text_cache, field) == 65536


@pytest.mark.parametrize("raw", ["0", "-5", "many", "1.5"])
@pytest.mark.parametrize(("env", "default"), _BUDGETS)
def test_bad_budgets_are_refused(raw: str, env: str, default: int) -> None:
    with pytest.raises(SettingsError, match=env):
        Settings.from_env({env: raw})
