"""How many paragraphs' derived text each process keeps: sentence splits (spans.py), extracted
facts, word tokens and names/figures (facts/). All are pure functions of a paragraph's text,
and the same documents are read question after question (the conflict scan reads every
paragraph of every selected document), so a paragraph met again costs a lookup, not a parse.
Decoded analyses stored at ingest (analysis.py) have their own size: with them a paragraph
missing from the other caches costs a decode, not a parse.

The sizes are TextCacheSettings (service/settings); each entry point (CLI, API, answer worker)
applies them with `configure_text_caches` once, before the first question. Until then the caches
have the settings' default sizes."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Generic, Literal, ParamSpec, TypeVar

from service.settings import TextCacheSettings

__all__ = ["CacheKind", "ParagraphCache", "configure_text_caches", "paragraph_cache"]

P = ParamSpec("P")
R = TypeVar("R")
CacheKind = Literal["text", "analysis"]
_DEFAULTS = TextCacheSettings()
_CACHES: list[ParagraphCache[..., object]] = []


class ParagraphCache(Generic[P, R]):
    """An LRU cache of a pure function of one paragraph, resizable at start-up."""

    def __init__(self, function: Callable[P, R], kind: CacheKind) -> None:
        self.kind = kind
        self.__wrapped__ = function
        self.__doc__ = function.__doc__
        self._cached = functools.lru_cache(maxsize=_size(_DEFAULTS, kind))(function)

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        return self._cached(*args, **kwargs)  # type: ignore[arg-type]

    def resize(self, paragraphs: int) -> None:
        """A new, empty cache of this size (entries are cheap to recompute)."""
        self._cached = functools.lru_cache(maxsize=paragraphs)(self.__wrapped__)

    def cache_info(self) -> functools._CacheInfo:
        return self._cached.cache_info()

    def cache_clear(self) -> None:
        self._cached.cache_clear()


def paragraph_cache(kind: CacheKind) -> Callable[[Callable[P, R]], ParagraphCache[P, R]]:
    def wrap(function: Callable[P, R]) -> ParagraphCache[P, R]:
        cache = ParagraphCache(function, kind)
        _CACHES.append(cache)  # type: ignore[arg-type]
        return cache

    return wrap


def configure_text_caches(settings: TextCacheSettings) -> None:
    """Give every paragraph cache its configured size (a resized cache starts empty)."""
    for cache in _CACHES:
        wanted = _size(settings, cache.kind)
        if cache.cache_info().maxsize != wanted:
            cache.resize(wanted)


def _size(settings: TextCacheSettings, kind: CacheKind) -> int:
    return settings.paragraphs if kind == "text" else settings.analysis_paragraphs
