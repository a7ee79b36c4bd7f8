"""The graph's embedding models: recording, switching, activation, rollback and retirement
(docs/embeddings.md).

A switch embeds every head paragraph with the new model beside the active model's vectors (its
own paragraph property, service/embedding_space.py), builds the model's vector indexes (shared
and per large scope), audits coverage and retrieval agreement, and activates the model in one
transaction that counts the coverage again. Every step can be repeated: an interrupted switch
(a crash, `kill -9`) goes on where it stopped when run again, and the active model never
changes except by that one transaction. Questions meanwhile use the active model throughout.

Ingestion writes the active model's vectors only; a paragraph written during a switch is found
by the switch's next pass, and activation embeds what is still missing before it flips.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from ingest.embeddings import Embedder, ModelRoster
from ingest.scope_index import await_online, create_scope_vector_index
from ingest.units import embedding_text
from service.db.graph import Graph
from service.embedding_space import (
    Binding,
    EmbeddingSpace,
    bind_embedder,
    forget_active_space,
    parse_model_spec,
    space_for,
    space_of_row,
)
from service.errors import KgsError
from service.settings import EmbeddingSettings

__all__ = [
    "Audit",
    "ModelSwitchError",
    "SwitchReport",
    "activate",
    "fill",
    "list_models",
    "other_vector_properties",
    "record_first_model",
    "registered_space",
    "retire",
    "rollback",
    "switch",
]

Progress = Callable[[str], None]
AGREEMENT_TOP = 10  # the audit compares the models' top results this deep
RETIRE_BATCH_FACTOR = 16  # retire clears vectors this many switch batches at a time (no model)


class ModelSwitchError(KgsError, RuntimeError):
    """The switch, activation, rollback or retirement cannot be done; nothing changed state."""

    http_status = 409


class Audit(msgspec.Struct, frozen=True, kw_only=True):
    """A model's coverage, and how far its retrieval agrees with the active model's."""

    paragraphs: int
    embedded: int
    questions: int  # probe questions asked of both models
    agreement: float | None  # mean share of the active model's top 10 the new model also ranks
    recall_active: float | None  # share of probes whose source paragraph the active finds
    recall_new: float | None  # the same for the new model

    @property
    def coverage(self) -> float:
        return self.embedded / self.paragraphs if self.paragraphs else 1.0


class SwitchReport(msgspec.Struct, frozen=True, kw_only=True):
    model: str  # name@dimensions
    property: str
    embedded: int  # vectors written by this run
    indexes: tuple[str, ...]
    audit: Audit
    activated: bool
    previous: str | None  # the model active before, now standby
    elapsed_s: float


def record_first_model(graph: Graph, binding: Binding) -> None:
    """Once the embedder of a graph without a recorded model has made its first vectors: record
    its model as the graph's first (the vectors on `embedding` are known to be that model's).
    Never before: a model that fails to load must not become the graph's model."""
    if not binding.recorded and binding.space is not None and binding.embedder is not None:
        graph.write("embeddings/record_first_model", **_model_params(binding.space))
        forget_active_space()


def other_vector_properties(graph: Graph, space: EmbeddingSpace) -> tuple[str, ...]:
    """The vector properties of every recorded model but `space`'s."""
    rows = graph.read("embeddings/models")
    return tuple(str(r["property"]) for r in rows if r["property"] != space.vector_property)


def list_models(graph: Graph) -> list[dict[str, object]]:
    """Every recorded model with its coverage, the active one first."""
    models = []
    for row in graph.read("embeddings/models"):
        [counts] = graph.read("embeddings/coverage", property=row["property"])
        models.append(dict(row) | {"paragraphs": counts["paragraphs"],
                                   "embedded": counts["embedded"]})  # fmt: skip
    return models


def switch(
    graph: Graph,
    roster: ModelRoster,
    spec: str,
    settings: EmbeddingSettings,
    *,
    activate_now: bool = True,
    progress: Progress | None = None,
) -> SwitchReport:
    """`kgs embeddings switch MODEL[@DIMENSIONS]`: build the model beside the active one, audit
    it and (with `activate_now`) activate it."""
    started = time.perf_counter()
    say = progress or (lambda _: None)
    current = _current(graph, roster)
    model, dimensions = parse_model_spec(spec, settings.dimensions)
    target = registered_space(graph, f"{model}@{dimensions}") or space_for(model, dimensions)
    if target.name == current.name:
        raise ModelSwitchError(f"{target.name} is already the active model")
    [row] = graph.write("embeddings/record_model", **_model_params(target)).rows
    if row["status"] == "retiring":
        raise ModelSwitchError(f"{target.name} is being retired; retire it fully first")
    embedder = roster.for_space(target)
    say(f"embedding head paragraphs with {target.name} into {target.vector_property}")
    embedded = fill(graph, embedder, target, settings.switch_batch, say)
    indexes = _build_indexes(graph, target, settings.switch_index_timeout_s, say)
    audit = audit_model(graph, roster.for_space(current), current, embedder, target,
                        settings.audit_questions)  # fmt: skip
    graph.write("embeddings/set_model_status", modelName=target.name, status="ready")
    previous = None
    if activate_now:
        previous = activate(graph, roster, target.name, settings, say)
    return SwitchReport(
        model=target.name, property=target.vector_property, embedded=embedded, indexes=indexes,
        audit=audit, activated=activate_now, previous=previous,
        elapsed_s=round(time.perf_counter() - started, 2),
    )  # fmt: skip


def fill(
    graph: Graph,
    embedder: Embedder,
    space: EmbeddingSpace,
    batch: int,
    progress: Progress | None = None,
) -> int:
    """Embed every paragraph without a vector of `space`, in id order, `batch` at a time; then
    again from the start for paragraphs written meanwhile, until a pass finds none (or writes
    none: they were all rewritten under it, and are left to activation's next attempt).
    Returns how many vectors were written."""
    written = 0
    while True:
        after, found, before = "", 0, written
        while rows := graph.read("embeddings/paragraphs_without_vector", after=after,
                                 property=space.vector_property, limit=batch):  # fmt: skip
            texts = [embedding_text(r["title"] or "", r["headingPath"] or [], r["text"] or "")
                     for r in rows]  # fmt: skip
            payload = [
                {"id": r["id"], "embeddingHash": r["embeddingHash"], "vector": vector}
                for r, vector in zip(rows, embedder.embed(texts), strict=True)
            ]
            [done] = graph.write("embeddings/set_vectors", property=space.vector_property,
                                 rows=payload).rows  # fmt: skip
            written += int(done["written"])
            found += len(rows)
            after = str(rows[-1]["id"])
            if progress:
                progress(f"{written} vectors written")
        if not found or written == before:
            return written


def activate(
    graph: Graph,
    roster: ModelRoster,
    name: str,
    settings: EmbeddingSettings,
    progress: Progress | None = None,
) -> str | None:
    """Make the recorded model `name` the active one, in one transaction, once every paragraph
    has its vector (embedding what ingestion added meanwhile first). Returns the model active
    before. Rollback is this for the previous model."""
    row = _registered_row(graph, name)
    if row is None:
        raise ModelSwitchError(f"no recorded model {name}")
    if row["status"] not in ("ready", "standby", "active"):
        raise ModelSwitchError(f"{name} is {row['status']}: `kgs embeddings switch` builds it")
    space = space_of_row(row)
    embedder = roster.for_space(space)
    for _ in range(settings.switch_attempts):
        fill(graph, embedder, space, settings.switch_batch, progress)
        rows = graph.write("embeddings/activate_model", modelName=name).rows
        if rows:
            forget_active_space()
            return str(rows[0]["previous"]) if rows[0]["previous"] else None
    raise ModelSwitchError(
        f"{name} was not activated: paragraphs without its vectors kept appearing "
        f"({settings.switch_attempts} attempts); run the switch again when writes are quieter"
    )


def rollback(
    graph: Graph, roster: ModelRoster, settings: EmbeddingSettings, progress: Progress | None = None
) -> tuple[str, str | None]:
    """Activate the model that was active before the current one: (it, the one it replaced)."""
    standby = [r for r in graph.read("embeddings/models") if r["status"] == "standby"]
    if not standby:
        raise ModelSwitchError("no previous model to roll back to")
    name = str(standby[0]["name"])  # the most recently deactivated
    return name, activate(graph, roster, name, settings, progress)


def retire(graph: Graph, name: str, settings: EmbeddingSettings) -> int:
    """Drop a model that is not active: its indexes, then its vectors, then its record.
    Returns how many vectors were removed."""
    space = registered_space(graph, name)
    if space is None:
        raise ModelSwitchError(f"no recorded model {name}")
    if not graph.write("embeddings/set_model_status", modelName=name, status="retiring").rows:
        raise ModelSwitchError(f"{name} is the active model; activate another first")
    forget_active_space()
    for row in graph.read("embeddings/model_indexes", index=space.index):
        graph.schema("scope/drop_paragraph_vector_index", indexName=row["name"])
    cleared = 0
    while count := int(
        graph.write(
            "embeddings/clear_vectors",
            property=space.vector_property,
            batch=settings.switch_batch * RETIRE_BATCH_FACTOR,
        ).rows[0]["cleared"]
    ):
        cleared += count
    graph.write("embeddings/delete_model", modelName=name)
    return cleared


def audit_model(
    graph: Graph,
    active_embedder: Embedder,
    active: EmbeddingSpace,
    embedder: Embedder,
    space: EmbeddingSpace,
    questions: int,
) -> Audit:
    """Coverage, and agreement on probe questions: the first sentence of sampled paragraphs
    (every `paragraphs / questions`-th by id), each asked of both models by exact cosine in its
    scope. Agreement is the share of the active model's top 10 the new model also ranks there;
    recall, how often a model's top 10 holds the paragraph the question came from."""
    [counts] = graph.read("embeddings/coverage", property=space.vector_property)
    sample = graph.read("embeddings/audit_sample", limit=questions) if questions else []
    probes = [(r["id"], r["scope"], _first_sentence(r["text"])) for r in sample if r["text"]]
    if not probes:
        return Audit(paragraphs=counts["paragraphs"], embedded=counts["embedded"], questions=0,
                     agreement=None, recall_active=None, recall_new=None)  # fmt: skip
    texts = [q for _, _, q in probes]
    old_vectors, new_vectors = active_embedder.embed(texts), embedder.embed(texts)
    overlaps, found_old, found_new = [], 0, 0
    for (source, scope, _), old, new in zip(probes, old_vectors, new_vectors, strict=True):
        top_old = _top(graph, scope, old, active.vector_property)
        top_new = _top(graph, scope, new, space.vector_property)
        overlaps.append(len(set(top_old) & set(top_new)) / max(len(top_old), 1))
        found_old += source in top_old
        found_new += source in top_new
    return Audit(
        paragraphs=counts["paragraphs"], embedded=counts["embedded"], questions=len(probes),
        agreement=round(sum(overlaps) / len(overlaps), 4),
        recall_active=round(found_old / len(probes), 4),
        recall_new=round(found_new / len(probes), 4),
    )  # fmt: skip


def _top(graph: Graph, scope: str, vector: Sequence[float], prop: str) -> list[str]:
    rows = graph.read("retrieval/vector_paragraphs_exact", scope=scope, vector=list(vector),
                      limit=AGREEMENT_TOP, property=prop)  # fmt: skip
    return [str(r["paragraphId"]) for r in rows]


def _first_sentence(text: str, limit: int = 200) -> str:
    sentence = re.split(r"(?<=[.!?])\s", text.strip(), maxsplit=1)[0]
    return sentence[:limit]


def _build_indexes(
    graph: Graph, space: EmbeddingSpace, timeout_s: float, say: Progress
) -> tuple[str, ...]:
    """The model's shared vector index, and its own index in every scope that has one."""
    names = [space.index]
    if space.vector_property == "embedding":
        graph.schema("schema/paragraph_embedding_vector")
    else:
        graph.schema("embeddings/model_vector_index", vector_property=space.vector_property,
                     indexName=space.index, dimensions=space.dimensions)  # fmt: skip
    for row in graph.read("embeddings/scopes_with_own_index"):
        names.append(create_scope_vector_index(graph, str(row["scope"]), space))
    for name in names:
        say(f"index {name}: {await_online(graph, name, timeout_s)}")
    return tuple(names)


def _current(graph: Graph, roster: ModelRoster) -> EmbeddingSpace:
    """The active model, recording the roster's configured model when none is yet."""
    binding = bind_embedder(graph, roster)
    if binding.space is None or binding.embedder is None:
        raise ModelSwitchError(f"the active model cannot embed: {binding.detail or binding.status}")
    roster.for_space(binding.space).load()
    record_first_model(graph, binding)
    return binding.space


def _registered_row(graph: Graph, name: str) -> dict[str, Any] | None:
    return next((r for r in graph.read("embeddings/models") if r["name"] == name), None)


def registered_space(graph: Graph, name: str) -> EmbeddingSpace | None:
    """The recorded model `name` (name@dimensions), or None."""
    row = _registered_row(graph, name)
    return space_of_row(row) if row else None


def _model_params(space: EmbeddingSpace) -> dict[str, object]:
    return {"modelName": space.name, "model": space.model, "dimensions": space.dimensions,
            "normalised": space.normalised, "property": space.vector_property,
            "index": space.index}  # fmt: skip
