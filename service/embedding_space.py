"""Embedding spaces: which model's vectors a question is compared with (docs/embeddings.md).

Every paragraph vector belongs to one model (name and dimensions). The graph records its models
(`EmbeddingModel` nodes); exactly one is active, and questions and ingestion use it. Each model
keeps its vectors in its own paragraph property, with its own vector indexes, so a model being
built sits beside the active one and activation only moves the `active` status. The first model
of a graph keeps the historical names (`embedding`, `paragraph_embedding`).

A question is embedded by the active model or not at all: `bind_embedder` gives the embedder for
the active space, or None (lexical retrieval only) with the reason, which the trace shows.
`trial_space` stands a built model in for the active one in this thread's questions only: a
gated switch (`kgs embeddings switch --gate`) asks its gold questions of the new model before
activating it.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Literal, Protocol

import msgspec

from service.db.graph import Graph
from service.errors import KgsError
from service.scope import scope_key

__all__ = [
    "DEFAULT_SPACE",
    "ORIGINAL_PROPERTY",
    "Binding",
    "EmbeddingSpace",
    "ModelSpecError",
    "active_space",
    "bind_embedder",
    "forget_active_space",
    "parse_model_spec",
    "space_for",
    "space_of_row",
    "trial_space",
]

ORIGINAL_PROPERTY = "embedding"
ORIGINAL_INDEX = "paragraph_embedding"
# How long a process trusts its last read of the active model. A question that meets a model
# activated within this window is embedded by the previous model and compared with that
# model's vectors, which stay until the model is retired: consistent, only one step behind.
ACTIVE_CACHE_S = 1.0


class ModelSpecError(KgsError, ValueError):
    http_status = 400


class EmbeddingSpace(msgspec.Struct, frozen=True, kw_only=True):
    """One model's vectors: where they are stored and indexed."""

    model: str  # the sentence-transformers name or path
    dimensions: int
    vector_property: str  # the paragraph property holding the vectors
    index: str  # the shared vector index over that property
    normalised: bool = True

    @property
    def name(self) -> str:
        """The registry's name of the model: `model@dimensions`."""
        return f"{self.model}@{self.dimensions}"

    def scope_index(self, scope: str) -> str:
        """The name of a large scope's own vector index for this model (cypher/scope/)."""
        return f"{self.index}_{scope_key(scope)}"


def space_for(model: str, dimensions: int, *, original: bool = False) -> EmbeddingSpace:
    """The space of a model: the graph's first model keeps the historical property and index;
    any other gets names derived from `model@dimensions` (a short hash: safe in a schema
    command, where a property cannot be a parameter)."""
    if original:
        return EmbeddingSpace(model=model, dimensions=dimensions, vector_property=ORIGINAL_PROPERTY,
                              index=ORIGINAL_INDEX)  # fmt: skip
    key = "m" + hashlib.sha256(f"{model}@{dimensions}".encode()).hexdigest()[:8]
    return EmbeddingSpace(model=model, dimensions=dimensions, vector_property=f"embedding_{key}",
                          index=f"paragraph_embedding_{key}")  # fmt: skip


# What retrieval assumes when no space is given (callers outside the answer path, and answers
# without a question vector, where the property is never read).
DEFAULT_SPACE = space_for("all-MiniLM-L6-v2", 384, original=True)


def parse_model_spec(spec: str, default_dimensions: int) -> tuple[str, int]:
    """`MODEL` or `MODEL@DIMENSIONS` (a smaller dimension truncates the model's vectors, as
    sentence-transformers' truncate_dim does, and normalises them again)."""
    model, at, dims = spec.strip().rpartition("@") if "@" in spec else (spec.strip(), "", "")
    if not model:
        raise ModelSpecError(f"no model name in {spec!r}")
    if not at:
        return model, default_dimensions
    if not dims.isdigit() or not 1 <= int(dims) <= 4096:
        raise ModelSpecError(f"dimensions must be an integer from 1 to 4096, not {dims!r}")
    return model, int(dims)


def space_of_row(row: dict[str, Any]) -> EmbeddingSpace:
    return EmbeddingSpace(model=str(row["model"]), dimensions=int(row["dimensions"]),
                          vector_property=str(row["property"]), index=str(row["index"]),
                          normalised=bool(row["normalised"]))  # fmt: skip


_active: dict[int, tuple[float, EmbeddingSpace | None]] = {}
_active_lock = threading.Lock()


def active_space(graph: Graph) -> EmbeddingSpace | None:
    """The graph's active model (None: no model recorded yet), read at most once a second per
    driver (a question's one registry read is a cached dictionary lookup)."""
    key, now = id(graph.driver), time.monotonic()
    with _active_lock:
        cached = _active.get(key)
    if cached is not None and now - cached[0] < ACTIVE_CACHE_S:
        return cached[1]
    rows = graph.read("embeddings/active_model")
    space = space_of_row(rows[0]) if rows else None
    with _active_lock:
        _active[key] = (now, space)
    return space


_trial: ContextVar[EmbeddingSpace | None] = ContextVar("kgs_trial_space", default=None)


@contextmanager
def trial_space(space: EmbeddingSpace) -> Iterator[None]:
    """Questions asked in this context (this thread) use `space` as if it were active."""
    token = _trial.set(space)
    try:
        yield
    finally:
        _trial.reset(token)


def forget_active_space() -> None:
    """After this process changed the registry: the next read sees it at once."""
    with _active_lock:
        _active.clear()


class _Embedder(Protocol):
    def embed(self, texts: Sequence[str]) -> list[list[float]]: ...


class Binding(msgspec.Struct, frozen=True, kw_only=True):
    """The embedder a question uses, and why (the trace's `embedding` entry)."""

    space: EmbeddingSpace | None
    embedder: Any  # _Embedder | None: None means lexical retrieval only
    status: Literal["used", "mismatch", "unavailable", "disabled"]
    detail: str = ""
    recorded: bool = True  # False: no model recorded yet, `space` is the embedder's own

    def trace(self) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "model": self.space.name if self.space else None,
            "property": self.space.vector_property if self.space else None,
            "status": self.status,
        }
        if self.detail:
            entry["detail"] = self.detail
        return entry


def bind_embedder(graph: Graph, embedder: _Embedder | None) -> Binding:
    """The active model's embedder, or None with the reason. An embedder that can serve several
    models (`for_space`, as ingest/embeddings.py ModelRoster and the answer workers' client) is
    asked for the active one; any other is used only when it is that model. With no model
    recorded, the embedder's own model is the graph's first (original) one."""
    if embedder is None:
        return Binding(space=None, embedder=None, status="disabled")
    own_model = getattr(embedder, "stands_in_for", None) or getattr(embedder, "name", None)
    own_dimensions = getattr(embedder, "dimensions", None)
    space = _trial.get() or active_space(graph)
    if space is None:  # nothing recorded yet: the vectors on `embedding` are this model's
        space = space_for(str(own_model or "unnamed"), int(own_dimensions or 0), original=True)
        return Binding(space=space, embedder=embedder, status="used", recorded=False)
    for_space = getattr(embedder, "for_space", None)
    if for_space is not None:
        try:
            return Binding(space=space, embedder=for_space(space), status="used")
        except KgsError as error:
            return Binding(space=space, embedder=None, status="unavailable", detail=str(error))
    if own_model is None or (own_model, own_dimensions) == (space.model, space.dimensions):
        return Binding(space=space, embedder=embedder, status="used")
    return Binding(
        space=space, embedder=None, status="mismatch",
        detail=f"the active model is {space.name}; this process embeds with "
        f"{own_model}@{own_dimensions}, so the question is not embedded",
    )  # fmt: skip
