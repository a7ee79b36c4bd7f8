"""KGS_TEXT_CACHE_PARAGRAPHS sizes every per-paragraph text cache, KGS_ANALYSIS_CACHE_PARAGRAPHS
the decoded stored analyses, and bad values are refused."""

from __future__ import annotations

import pytest

from service.settings import SettingsError
from service.text import analysis, spans, text_cache
from service.text.facts import extraction, words

_SIZES = [("KGS_TEXT_CACHE_PARAGRAPHS", 8192), ("KGS_ANALYSIS_CACHE_PARAGRAPHS", 8192)]


def test_every_paragraph_text_cache_has_the_configured_size() -> None:
    caches = [spans._sentences, extraction._cached_passage_facts, words._text_tokens,
              words._text_anchors]  # fmt: skip
    assert {c.cache_info().maxsize for c in caches} == {text_cache.TEXT_CACHE_PARAGRAPHS}
    maxsize = analysis.decode_analysis.cache_info().maxsize
    assert maxsize == text_cache.ANALYSIS_CACHE_PARAGRAPHS


@pytest.mark.parametrize(("env", "default"), _SIZES)
def test_the_size_comes_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, env: str, default: int
) -> None:
    monkeypatch.delenv(env, raising=False)
    assert text_cache._paragraphs(env, default) == default
    monkeypatch.setenv(env, "65536")
    assert text_cache._paragraphs(env, default) == 65536


@pytest.mark.parametrize("raw", ["0", "-5", "many", "1.5"])
@pytest.mark.parametrize(("env", "default"), _SIZES)
def test_bad_sizes_are_refused(
    monkeypatch: pytest.MonkeyPatch, raw: str, env: str, default: int
) -> None:
    monkeypatch.setenv(env, raw)
    with pytest.raises(SettingsError, match=env):
        text_cache._paragraphs(env, default)
