"""One embedding model for the service process and its answer workers.

The model (PyTorch and its weights, ~0.9 GiB resident) is loaded once, in the service process.
Answer worker processes send it their texts over a Unix socket (`multiprocessing.connection`,
with an authentication key) and get float32 vectors back; they never import PyTorch. The
service's embedder merges the texts of concurrent callers into one model call and keeps recent
vectors, so the workers share its batching and its cache.

Frames: a request is a msgpack [model, dimensions, texts] (the model of the graph's active space,
service/embedding_space.py); a reply is b"v" + float32 vectors, row after row, or b"e" + a UTF-8
message (the model failed or cannot load: the worker raises EmbeddingError, as in-process).
"""

from __future__ import annotations

import logging
import secrets
import tempfile
import threading
from collections.abc import Sequence
from multiprocessing.connection import Client, Connection, Listener
from pathlib import Path

import msgspec
import numpy as np

from ingest.embeddings import EmbeddingError, ModelRoster
from service.embedding_space import EmbeddingSpace

__all__ = ["ModelAddress", "ModelClient", "ModelServer"]

log = logging.getLogger("kgs.api")

_VECTORS = b"v"
_ERROR = b"e"


class ModelAddress(msgspec.Struct, frozen=True, kw_only=True):
    """Where a worker reaches the model, and the key that proves it was started by us."""

    path: str
    authkey: bytes


class ModelServer:
    """Serves the roster's models on a Unix socket in a private temporary directory; one thread
    per connected worker thread (a worker holds a few: its answer thread and embedding pool)."""

    def __init__(self, roster: ModelRoster) -> None:
        self._roster = roster
        self._dir = tempfile.TemporaryDirectory(prefix="kgs-model-")
        path = str(Path(self._dir.name) / "model.sock")
        authkey = secrets.token_bytes(32)
        self._listener = Listener(path, family="AF_UNIX", authkey=authkey)
        self.address = ModelAddress(path=path, authkey=authkey)
        self._closed = threading.Event()
        self._accepting = threading.Thread(target=self._accept, name="kgs-model-accept",
                                           daemon=True)  # fmt: skip
        self._accepting.start()

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                connection = self._listener.accept()
            except OSError:  # closed, or a peer that failed the authentication
                if self._closed.is_set():
                    return
                log.warning("a model connection was refused (authentication failed)")
                continue
            threading.Thread(target=self._serve, args=(connection,), name="kgs-model-conn",
                             daemon=True).start()  # fmt: skip

    def _serve(self, connection: Connection) -> None:
        with connection:
            while True:
                try:
                    model, dimensions, texts = msgspec.msgpack.decode(
                        connection.recv_bytes(), type=tuple[str, int, list[str]]
                    )
                except (EOFError, OSError):
                    return  # the worker closed its end
                try:
                    space = EmbeddingSpace(model=model, dimensions=dimensions, vector_property="",
                                           index="")  # fmt: skip
                    embedder = self._roster.for_space(space)
                    vectors = np.asarray(embedder.embed(texts), dtype=np.float32)
                    reply = _VECTORS + vectors.tobytes()
                except EmbeddingError as error:
                    reply = _ERROR + str(error).encode()
                try:
                    connection.send_bytes(reply)
                except OSError:
                    return

    def close(self) -> None:
        self._closed.set()
        self._listener.close()
        self._dir.cleanup()


class ModelClient:
    """The worker side: `embed` as the in-process embedder does, one connection per thread
    (a connection carries one request at a time). `for_space` gives a client of another model
    of the service's roster; it is loaded there on its first texts."""

    def __init__(self, address: ModelAddress, model: str, dimensions: int) -> None:
        self.address = address
        self.name, self.dimensions = model, dimensions
        self._local = threading.local()
        self._others: dict[tuple[str, int], ModelClient] = {}

    def for_space(self, space: EmbeddingSpace) -> ModelClient:
        key = (space.model, space.dimensions)
        if key == (self.name, self.dimensions):
            return self
        # setdefault: one client (and its connections) per model, kept for the next questions
        return self._others.setdefault(key, ModelClient(self.address, *key))

    def _connection(self) -> Connection:
        connection: Connection | None = getattr(self._local, "connection", None)
        if connection is None:
            connection = Client(self.address.path, family="AF_UNIX",
                                authkey=self.address.authkey)  # fmt: skip
            self._local.connection = connection
        return connection

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        try:
            connection = self._connection()
            connection.send_bytes(msgspec.msgpack.encode((self.name, self.dimensions, list(texts))))
            reply = connection.recv_bytes()
        except (EOFError, OSError) as error:
            self._local.connection = None  # the next call connects again
            raise EmbeddingError(f"the service's model is unreachable: {error}") from error
        if reply[:1] == _ERROR:
            raise EmbeddingError(reply[1:].decode())
        vectors = np.frombuffer(reply, dtype=np.float32, offset=1).reshape(len(texts), -1)
        return vectors.tolist()
