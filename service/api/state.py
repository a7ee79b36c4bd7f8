"""Resources that live for the app's lifetime, handed to handlers as dependencies."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager

from litestar import Litestar

from service.db import Graph, open_graph
from service.settings import Settings

__all__ = ["AppResources", "lifespan"]


class AppResources:
    """The Neo4j Graph; opened at start-up, closed at shutdown."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.graph: Graph | None = None
        self._close: Callable[[], None] | None = None

    def open(self) -> None:
        self.graph, _, self._close = open_graph(self.settings)

    def close(self) -> None:
        if self._close is not None:
            self._close()
        self.graph = None


def lifespan(resources: AppResources) -> Callable[[Litestar], AbstractAsyncContextManager[None]]:
    @asynccontextmanager
    async def _lifespan(app: Litestar) -> AsyncIterator[None]:
        resources.open()
        try:
            yield
        finally:
            resources.close()

    return _lifespan
