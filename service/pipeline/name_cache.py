"""The knowledge-point names of large scopes, held in this process: a question's names are then
looked up without a round trip (reading them by full-text search was the longest statement of
retrieval, a few milliseconds per question).

An entry is read together with its scope's change-feed position (`ChangeCounter.seq`, bumped in
the transaction of every document change). The channel statement that uses the names returns
the feed's position as it runs; when it moved, the names are not trusted: that question reads
its names by full-text search as before, and the entry reloads in the background. So a name
added by any process is seen by the first question whose reads start after that change commits.
An entry also expires after `name_cache_ttl_s`, which bounds what the feed does not announce
(a deleted scope, knowledge points pruned after a change). The entries of a process stay within
`name_cache_bytes` as estimated when read (the oldest read goes first); a scope whose names
alone exceed it is not kept, and its questions use the search.
"""

from __future__ import annotations

import logging
import threading
import time
import weakref
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import msgspec

from service.db.graph import Graph
from service.pipeline.names import singulars, word_runs
from service.settings import PipelineSettings
from service.text.relation_labels import compact_key
from service.text.text_cache import approximate_size

__all__ = ["NameCacheStats", "ScopeNames", "admit", "cached_names", "forget_names",
           "name_cache_stats", "scope_names"]  # fmt: skip

log = logging.getLogger(__name__)


class ScopeNames(msgspec.Struct, frozen=True):
    seq: int  # the scope's change-feed position the names were read at
    read_at: float  # time.monotonic()
    # compact key of a title, alias or id -> the knowledge points it names, as rows of
    # retrieval/knowledge_point_candidates (id, title, aliases, documentId, path)
    latin: Mapping[str, tuple[Mapping[str, Any], ...]]
    # names with non-ASCII letters (CJK): matched as substrings of the question's compact form
    other: tuple[tuple[str, Mapping[str, Any]], ...]
    bytes: int = 0  # as estimated when read (approximate_size of each point and name key)

    def candidates(self, query: str) -> list[Mapping[str, Any]]:
        """The knowledge points one of whose names may occur in the question: a superset that
        `match_names` filters exactly (plural forms, minimum lengths, operands)."""
        found: dict[tuple[str, str | None], Mapping[str, Any]] = {}
        for run in word_runs(query):
            for key in singulars(run):
                for row in self.latin.get(key, ()):
                    found.setdefault((row["id"], row["documentId"]), row)
        if self.other:
            text = compact_key(query)
            for key, row in self.other:
                if key in text:
                    found.setdefault((row["id"], row["documentId"]), row)
        return sorted(found.values(), key=lambda r: (r["id"], r["documentId"] or ""))


# driver -> (database, scope) -> names. Keyed by the driver (a question's Graph is a child of
# the process's one, on its driver): entries go with the driver that read them.
_Key = tuple[str | None, str]
_CACHE: weakref.WeakKeyDictionary[Any, dict[_Key, ScopeNames]] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()
_LOADING: set[tuple[int, str | None, str]] = set()
_LOADER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="name-cache")
_COUNTS = {"hits": 0, "misses": 0}  # questions that found their scope's names held, or not


class NameCacheStats(msgspec.Struct, frozen=True, kw_only=True):
    bytes: int
    entries: int
    hits: int
    misses: int


def name_cache_stats() -> NameCacheStats:
    """The names held in this process, over every driver."""
    with _LOCK:
        entries = [e for held in _CACHE.values() for e in held.values()]
    return NameCacheStats(bytes=sum(e.bytes for e in entries), entries=len(entries),
                          hits=_COUNTS["hits"], misses=_COUNTS["misses"])  # fmt: skip


def cached_names(graph: Graph, scope: str, settings: PipelineSettings) -> ScopeNames | None:
    """The scope's names when held and fresh; otherwise None, and a load starts in the
    background (one per scope at a time) when the cache is on."""
    if settings.name_cache_bytes <= 0:
        return None
    with _LOCK:
        entry = _CACHE.get(graph.driver, {}).get((graph.database, scope))
        fresh = entry is not None and time.monotonic() - entry.read_at < settings.name_cache_ttl_s
        _COUNTS["hits" if fresh else "misses"] += 1
    if fresh:
        return entry
    _load_in_background(graph, scope, settings)
    return None


def forget_names(graph: Graph, scope: str, seq: int | None = None) -> None:
    """Drops the scope's entry (only if it was read at `seq`, when given); the next
    cached_names reloads it."""
    with _LOCK:
        held = _CACHE.get(graph.driver, {})
        entry = held.get((graph.database, scope))
        if entry is not None and (seq is None or entry.seq == seq):
            del held[(graph.database, scope)]


def _load_in_background(graph: Graph, scope: str, settings: PipelineSettings) -> None:
    key = (graph.database, scope)
    loading = (id(graph.driver), *key)
    with _LOCK:
        if loading in _LOADING:
            return
        _LOADING.add(loading)

    def load() -> None:
        try:
            # its own call record: the load belongs to no question's trace
            entry = _read(graph.child(), scope, settings.name_cache_max_points)
            with _LOCK:
                held = _CACHE.setdefault(graph.driver, {})
                held.pop(key, None)
                if entry is not None:
                    admit(held, key, entry, settings.name_cache_bytes)
        except Exception:  # Neo4j away: the next question reads names by search and retries
            log.warning("reading the names of scope %r failed", scope, exc_info=True)
        finally:
            with _LOCK:
                _LOADING.discard(loading)

    _LOADER.submit(load)


def admit(held: dict[_Key, ScopeNames], key: _Key, entry: ScopeNames, budget: int) -> None:
    """Holds `entry` when it fits `budget` bytes with the others, the oldest reads going first;
    an entry larger than the whole budget is not held."""
    if entry.bytes > budget:
        return
    while held and sum(e.bytes for e in held.values()) + entry.bytes > budget:
        del held[min(held, key=lambda k: held[k].read_at)]
    held[key] = entry


def _read(graph: Graph, scope: str, max_points: int) -> ScopeNames | None:
    """None when the scope has more knowledge points than the cache holds per scope."""
    [row] = graph.read("retrieval/scope_names", scope=scope, limit=max_points + 1)
    if int(row["points"]) > max_points:
        return None
    return scope_names(int(row["seq"]), row["names"])


_INDEX_SLOT_BYTES = 64  # a name key's share of the dict and tuple that index it


def scope_names(seq: int, names: Sequence[Sequence[Any]]) -> ScopeNames:
    """The entry of rows [id, title, aliases, documentId, path], indexed by compact name key."""
    latin: dict[str, list[Mapping[str, Any]]] = {}
    other: list[tuple[str, Mapping[str, Any]]] = []
    size = 0
    key_of = compact_key.__wrapped__  # a scope's every name, once: not through the shared cache
    for id_, title, aliases, document_id, path in names:
        kp = {"id": id_, "title": title, "aliases": aliases, "documentId": document_id,
              "path": path}  # fmt: skip
        size += approximate_size(kp)
        for key in dict.fromkeys(key_of(str(n)) for n in (title, *(aliases or []), id_)):
            size += approximate_size(key) + _INDEX_SLOT_BYTES
            if key.isascii():
                latin.setdefault(key, []).append(kp)
            elif key:
                other.append((key, kp))
    return ScopeNames(
        seq,
        time.monotonic(),
        {k: tuple(v) for k, v in latin.items()},
        tuple(other),
        size,
    )
