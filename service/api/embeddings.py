"""The graph's embedding models (docs/embeddings.md): list them with their coverage, activate a
built one, roll back to the one before. A switch itself (embedding every paragraph with a new
model) is a batch job of minutes to hours and runs as `kgs embeddings switch`; these routes are
its one-transaction steps. Changing the model changes every scope's answers, so only a write key
for every scope may."""

from __future__ import annotations

from functools import partial
from typing import Annotated

import anyio
import msgspec
from litestar import Controller, get, post
from litestar.exceptions import PermissionDeniedException

from ingest.embedding_models import activate, list_models, rollback
from ingest.embeddings import EmbeddingError, ModelRoster
from service.api.auth import Grant, requires_write
from service.api.errors import v1_problems
from service.api.state import AppResources

__all__ = ["EmbeddingController"]


class EmbeddingModelState(msgspec.Struct, kw_only=True, rename="camel"):
    name: str  # model@dimensions
    model: str
    dimensions: int
    status: str  # active | standby | ready | building | retiring
    property: str  # the paragraph property holding its vectors
    index: str  # its shared vector index
    paragraphs: int
    embedded: int  # paragraphs carrying its vector: activation needs all of them
    created_at: str | None
    activated_at: str | None


class ActivationRequest(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    model: Annotated[str, msgspec.Meta(min_length=1, max_length=300)]  # name@dimensions


class Activation(msgspec.Struct, kw_only=True, rename="camel"):
    active: str
    previous: str | None


def _roster(resources: AppResources) -> ModelRoster:
    if not isinstance(resources.embedder, ModelRoster):
        raise EmbeddingError("this service has no embedding model loaded")
    return resources.embedder


def _every_scope(grant: Grant) -> None:
    if grant.scopes is not None:
        raise PermissionDeniedException("changing the embedding model needs a key for every scope")


class EmbeddingController(Controller):
    path = "/embeddings"
    tags = ["embeddings"]  # noqa: RUF012

    @get(sync_to_thread=True, responses=v1_problems())
    def models(self, resources: AppResources) -> list[EmbeddingModelState]:
        """Every recorded model, the active one first, with how many paragraphs carry its
        vectors."""
        rows = list_models(resources.request_graph())
        return [msgspec.convert(r, EmbeddingModelState) for r in rows]

    @post("/activate", guards=[requires_write], status_code=200,
          responses=v1_problems(400, 403, 409, 503))  # fmt: skip
    async def activate(
        self, resources: AppResources, grant: Grant, data: ActivationRequest
    ) -> Activation:
        """Make a built model active in one transaction (every paragraph must have its
        vector; ones written since the build are embedded first)."""
        _every_scope(grant)
        previous = await anyio.to_thread.run_sync(partial(
            activate, resources.request_graph(), _roster(resources), data.model,
            resources.settings.embedding,
        ))  # fmt: skip
        return Activation(active=data.model, previous=previous)

    @post("/rollback", guards=[requires_write], status_code=200,
          responses=v1_problems(403, 409, 503))  # fmt: skip
    async def rollback(self, resources: AppResources, grant: Grant) -> Activation:
        """Make the model active before the current one active again, in one transaction."""
        _every_scope(grant)
        active, previous = await anyio.to_thread.run_sync(partial(
            rollback, resources.request_graph(), _roster(resources), resources.settings.embedding
        ))  # fmt: skip
        return Activation(active=active, previous=previous)
