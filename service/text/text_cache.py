"""What each process keeps of text it derived, bounded in bytes: per paragraph, sentence splits
(spans.py), extracted facts, word tokens and names/figures (facts/); per short text, the results
of the pure functions answering calls many times per question (a sentence's language, compact
keys, public texts, injection findings, a token's normal form). The same documents are read
question after question (the conflict scan reads every paragraph of every selected document), so
a text met again costs a lookup, not a parse.

The caches of one kind share one budget and one least-recently-used order: `text` (the splits,
facts, tokens and names together) and `function` (the short texts' results); decoded stored
analyses are not kept here (analysis.py says why). An entry's size is estimated once, when it is
stored (`approximate_size`: the objects it holds, as sys.getsizeof counts them, keys included);
the least recently used entries of the kind go until the kind is within its budget, and an entry
larger than the whole budget is not kept. A hit is a dict lookup in Python, about half a
microsecond more than functools.lru_cache's C one: some 1,600 calls a question, under a
millisecond, for a bound in bytes instead of in entries.

The budgets are TextCacheSettings (service/settings); each entry point (CLI, API, answer worker)
applies them with `configure_text_caches` once, before the first question. Until then the caches
have the settings' default budgets. `cache_stats` reports each kind's bytes, entries, hits and
misses."""

from __future__ import annotations

import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable
from typing import Any, Generic, Literal, ParamSpec, TypeVar

import msgspec

from service.settings import TextCacheSettings

__all__ = [
    "CacheKind",
    "CacheStats",
    "ParagraphCache",
    "approximate_size",
    "cache_stats",
    "configure_text_caches",
    "paragraph_cache",
]

P = ParamSpec("P")
R = TypeVar("R")
CacheKind = Literal["text", "function"]
_DEFAULTS = TextCacheSettings()


class CacheStats(msgspec.Struct, frozen=True, kw_only=True):
    kind: str  # a CacheKind, or another process cache's name (service/api/state.py)
    budget_bytes: int
    bytes: int
    entries: int
    hits: int
    misses: int


class _Store:
    """One kind's entries, in least-recently-used order, within its budget."""

    def __init__(self, kind: CacheKind, budget: int) -> None:
        self.kind = kind
        self.budget = budget
        self.entries: OrderedDict[tuple[int, Hashable], tuple[object, int]] = OrderedDict()
        self.bytes = 0
        # Counted without the lock (ParagraphCache.__call__): under contention a count may be
        # a little low; they are statistics.
        self.hits = 0
        self.misses = 0
        self.lock = threading.Lock()

    def put(self, key: tuple[int, Hashable], value: object, size: int) -> None:
        with self.lock:
            if size > self.budget or key in self.entries:
                return
            self.entries[key] = (value, size)
            self.bytes += size
            while self.bytes > self.budget:
                _, (_, freed) = self.entries.popitem(last=False)
                self.bytes -= freed

    def drop(self, owner: int | None = None) -> None:
        """Every entry (owner None) or every entry of one cache."""
        with self.lock:
            keys = list(self.entries)  # one C call: a lock-free hit cannot reorder it midway
            for key in [k for k in keys if owner is None or k[0] == owner]:
                self.bytes -= self.entries.pop(key)[1]

    def held(self, owner: int) -> tuple[int, int]:
        """Entries and estimated bytes of one cache."""
        with self.lock:
            sizes = [size for key, (_, size) in self.entries.items() if key[0] == owner]
        return len(sizes), sum(sizes)

    def stats(self) -> CacheStats:
        with self.lock:
            return CacheStats(kind=self.kind, budget_bytes=self.budget, bytes=self.bytes,
                              entries=len(self.entries), hits=self.hits,
                              misses=self.misses)  # fmt: skip


def _budget(settings: TextCacheSettings, kind: CacheKind) -> int:
    budgets = {"text": settings.text_bytes, "function": settings.function_bytes}
    return budgets[kind]


_STORES: dict[CacheKind, _Store] = {
    kind: _Store(kind, _budget(_DEFAULTS, kind)) for kind in ("text", "function")
}


class ParagraphCache(Generic[P, R]):
    """A cache of a pure function of a text, in its kind's shared byte budget."""

    def __init__(
        self, function: Callable[P, R], kind: CacheKind, size: Callable[[R], int] | None = None
    ) -> None:
        self.__wrapped__ = function
        self.__doc__ = function.__doc__
        self._id = id(self)
        self._store = _STORES[kind]
        self._size: Callable[[R], int] = size or approximate_size

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        key = (self._id, (args, tuple(sorted(kwargs.items()))) if kwargs else args)
        store = self._store
        # A hit takes no lock: the lookup and move_to_end are each one atomic step under the
        # GIL, and an entry evicted in between is a miss.
        found = store.entries.get(key)
        if found is not None:
            try:
                store.entries.move_to_end(key)
                store.hits += 1
                return found[0]  # type: ignore[return-value]
            except KeyError:
                pass
        store.misses += 1
        result = self.__wrapped__(*args, **kwargs)
        store.put(key, result, self._size(result) + approximate_size(key[1]))
        return result

    def cache_clear(self) -> None:
        self._store.drop(self._id)

    def cache_held(self) -> tuple[int, int]:
        """This cache's entries and estimated bytes, within its kind's budget."""
        return self._store.held(self._id)


def paragraph_cache(
    kind: CacheKind, size: Callable[[Any], int] | None = None
) -> Callable[[Callable[P, R]], ParagraphCache[P, R]]:
    """`size`: how to size a result, if not `approximate_size` (a result type sized often
    enough that walking it field by field costs more than computing it)."""

    def wrap(function: Callable[P, R]) -> ParagraphCache[P, R]:
        return ParagraphCache(function, kind, size)

    return wrap


def configure_text_caches(settings: TextCacheSettings) -> None:
    """Give each kind its configured budget (a kind whose budget changes starts empty)."""
    for kind, store in _STORES.items():
        wanted = _budget(settings, kind)
        if store.budget != wanted:
            store.drop()
            store.budget = wanted


def cache_stats() -> list[CacheStats]:
    return [store.stats() for store in _STORES.values()]


_SCALARS = frozenset([str, bytes, int, float, bool, type(None)])


def approximate_size(value: object) -> int:
    """Bytes of the objects `value` holds, as sys.getsizeof counts them: containers with their
    items, Structs with their fields. Shared objects count once per place they appear, which
    over-estimates (interned strings, small ints): the budget errs on the safe side."""
    size = sys.getsizeof(value)
    items: Iterable[object]
    if type(value) in _SCALARS:
        return size
    if isinstance(value, dict):
        items = [*value.keys(), *value.values()]
    elif isinstance(value, tuple | list | set | frozenset):
        items = value
    elif isinstance(value, msgspec.Struct):
        items = [getattr(value, field) for field in value.__struct_fields__]
    else:
        return size
    # Most entries are flat runs of words or figures: sized in C, not item by item (a
    # paragraph's 60 words took 15 us one call each, more than splitting them).
    if set(map(type, items)) <= _SCALARS:
        return size + sum(map(sys.getsizeof, items))
    return size + sum(map(approximate_size, items))
