"""KGS_TEXT_CACHE_PARAGRAPHS sizes every per-paragraph text cache, and bad values are refused."""

from __future__ import annotations

import pytest

from service.pipeline import facts, spans, text_cache
from service.settings import SettingsError


def test_every_paragraph_text_cache_has_the_configured_size() -> None:
    caches = [spans._sentences, facts._cached_passage_facts, facts._text_tokens,
              facts._text_anchors]  # fmt: skip
    assert {c.cache_info().maxsize for c in caches} == {text_cache.TEXT_CACHE_PARAGRAPHS}


def test_the_size_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KGS_TEXT_CACHE_PARAGRAPHS", raising=False)
    assert text_cache._paragraphs() == 8192
    monkeypatch.setenv("KGS_TEXT_CACHE_PARAGRAPHS", "65536")
    assert text_cache._paragraphs() == 65536


@pytest.mark.parametrize("raw", ["0", "-5", "many", "1.5"])
def test_bad_sizes_are_refused(monkeypatch: pytest.MonkeyPatch, raw: str) -> None:
    monkeypatch.setenv("KGS_TEXT_CACHE_PARAGRAPHS", raw)
    with pytest.raises(SettingsError, match="KGS_TEXT_CACHE_PARAGRAPHS"):
        text_cache._paragraphs()
