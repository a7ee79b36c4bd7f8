"""KGS_TEXT_CACHE_PARAGRAPHS sizes every per-paragraph text cache, KGS_ANALYSIS_CACHE_PARAGRAPHS
the decoded stored analyses; the sizes apply when an entry point configures them, and bad
values are refused."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from service.settings import Settings, SettingsError, TextCacheSettings
from service.text import analysis, spans, text_cache
from service.text.facts import extraction, words

_TEXT_CACHES = [spans._sentences, extraction._cached_passage_facts, words._text_tokens,
                words._text_anchors]  # fmt: skip
_SIZES = [("KGS_TEXT_CACHE_PARAGRAPHS", 8192), ("KGS_ANALYSIS_CACHE_PARAGRAPHS", 8192)]


@pytest.fixture(autouse=True)
def _default_sizes() -> Iterator[None]:
    yield
    text_cache.configure_text_caches(TextCacheSettings())


def test_every_paragraph_cache_takes_the_configured_size() -> None:
    text_cache.configure_text_caches(TextCacheSettings(paragraphs=17, analysis_paragraphs=5))
    assert {c.cache_info().maxsize for c in _TEXT_CACHES} == {17}
    assert analysis.decode_analysis.cache_info().maxsize == 5
    assert spans.split_sentences("One. Two.") == spans.split_sentences("One. Two.")
    assert spans._sentences.cache_info().currsize >= 1  # still a working cache


@pytest.mark.parametrize(("env", "default"), _SIZES)
def test_the_size_comes_from_the_environment(env: str, default: int) -> None:
    field = "paragraphs" if env == "KGS_TEXT_CACHE_PARAGRAPHS" else "analysis_paragraphs"
    assert getattr(Settings.from_env({}).text_cache, field) == default
    assert getattr(Settings.from_env({env: "65536"}).text_cache, field) == 65536


@pytest.mark.parametrize("raw", ["0", "-5", "many", "1.5"])
@pytest.mark.parametrize(("env", "default"), _SIZES)
def test_bad_sizes_are_refused(raw: str, env: str, default: int) -> None:
    with pytest.raises(SettingsError, match=env):
        Settings.from_env({env: raw})
