"""The knowledge-point names of large scopes, held in this process: a question's names are then
looked up without a round trip (reading them by full-text search was the longest statement of
retrieval, a few milliseconds per question).

An entry is read together with its scope's change-feed position (`ChangeCounter.seq`, bumped in
the transaction of every document change). The channel statement that uses the names returns
the feed's position as it runs; when it moved, the names are not trusted: that question reads
its names by full-text search as before, and the entry reloads in the background. So a name
added by any process is seen by the first question whose reads start after that change commits.
An entry also expires after `name_cache_ttl_s`, which bounds what the feed does not announce
(a deleted scope, knowledge points pruned after a change).
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

__all__ = ["ScopeNames", "cached_names", "forget_names", "scope_names"]

log = logging.getLogger(__name__)


class ScopeNames(msgspec.Struct, frozen=True):
    seq: int  # the scope's change-feed position the names were read at
    read_at: float  # time.monotonic()
    # compact key of a title, alias or id -> the knowledge points it names, as rows of
    # retrieval/knowledge_point_candidates (id, title, aliases, documentId, path)
    latin: Mapping[str, tuple[Mapping[str, Any], ...]]
    # names with non-ASCII letters (CJK): matched as substrings of the question's compact form
    other: tuple[tuple[str, Mapping[str, Any]], ...]

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
_CACHE: weakref.WeakKeyDictionary[Any, dict[tuple[str | None, str], ScopeNames]] = (
    weakref.WeakKeyDictionary()
)
_LOCK = threading.Lock()
_LOADING: set[tuple[int, str | None, str]] = set()
_LOADER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="name-cache")


def cached_names(graph: Graph, scope: str, settings: PipelineSettings) -> ScopeNames | None:
    """The scope's names when held and fresh; otherwise None, and a load starts in the
    background (one per scope at a time) when the cache is on."""
    if settings.name_cache_scopes <= 0:
        return None
    with _LOCK:
        entry = _CACHE.get(graph.driver, {}).get((graph.database, scope))
    if entry is not None and time.monotonic() - entry.read_at < settings.name_cache_ttl_s:
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
                    while len(held) >= settings.name_cache_scopes:  # the oldest read goes
                        del held[min(held, key=lambda k: held[k].read_at)]
                    held[key] = entry
        except Exception:  # Neo4j away: the next question reads names by search and retries
            log.warning("reading the names of scope %r failed", scope, exc_info=True)
        finally:
            with _LOCK:
                _LOADING.discard(loading)

    _LOADER.submit(load)


def _read(graph: Graph, scope: str, max_points: int) -> ScopeNames | None:
    """None when the scope has more knowledge points than the cache holds per scope."""
    [row] = graph.read("retrieval/scope_names", scope=scope, limit=max_points + 1)
    if int(row["points"]) > max_points:
        return None
    return scope_names(int(row["seq"]), row["names"])


def scope_names(seq: int, names: Sequence[Sequence[Any]]) -> ScopeNames:
    """The entry of rows [id, title, aliases, documentId, path], indexed by compact name key."""
    latin: dict[str, list[Mapping[str, Any]]] = {}
    other: list[tuple[str, Mapping[str, Any]]] = []
    for id_, title, aliases, document_id, path in names:
        kp = {"id": id_, "title": title, "aliases": aliases, "documentId": document_id,
              "path": path}  # fmt: skip
        for key in dict.fromkeys(compact_key(str(n)) for n in (title, *(aliases or []), id_)):
            if key.isascii():
                latin.setdefault(key, []).append(kp)
            elif key:
                other.append((key, kp))
    return ScopeNames(
        seq,
        time.monotonic(),
        {k: tuple(v) for k, v in latin.items()},
        tuple(other),
    )
