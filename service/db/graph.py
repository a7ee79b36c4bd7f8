"""The one place that runs Cypher: named statements from the registry, values as parameters.

Every call is recorded as a `CypherCall` (statement name, parameters, time, rows) so a trace can
show exactly what ran and a person can replay it in Neo4j Browser.
"""

from __future__ import annotations

import random
import re
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TypeVar

import msgspec
from neo4j import (
    READ_ACCESS,
    Driver,
    GraphDatabase,
    ManagedTransaction,
    Query,
    Record,
    Session,
    unit_of_work,
)
from neo4j.exceptions import ClientError, DriverError, Neo4jError

from service.db.cypher_registry import (
    VECTOR_PROPERTY,
    VECTOR_PROPERTY_TOKEN,
    CypherRegistry,
    Statement,
    with_vector_property,
)
from service.errors import KgsError
from service.settings import Neo4jSettings

__all__ = [
    "CypherCall",
    "Graph",
    "ReadOnlyViolation",
    "WriteCounters",
    "WriteResult",
    "open_driver",
]

T = TypeVar("T")
MAX_RECORDED_CALLS = 10_000
Row = dict[str, Any]


# Reads retried like the driver retries managed transactions: 1 s, then doubling, 20 % jitter,
# for as long as the driver's own default (max_transaction_retry_time) unless the caller says.
DEFAULT_READ_RETRY_S = 30.0
_FIRST_RETRY_DELAY_S = 1.0
_RETRY_JITTER = 0.2

_SCALARS = frozenset({str, int, float, bool, type(None), bytes, bytearray})


def _plain(value: Any) -> bool:
    """A scalar, or a list or map of plain values: what Record.data() returns unchanged."""
    kind = type(value)
    if kind in _SCALARS:
        return True
    if kind is list:
        return all(type(v) in _SCALARS or _plain(v) for v in value)
    if kind is dict:
        return all(type(v) in _SCALARS or _plain(v) for v in value.values())
    return False


def _row(record: Record) -> Row:
    """Record.data(), without its per-value conversion when every value is already plain (the
    registry's statements return scalars, lists and maps; the conversion's isinstance checks
    were a tenth of an answer's CPU). Nodes, paths and temporal values take the driver's way."""
    if all(_plain(v) for v in record):
        return dict(zip(record.keys(), record, strict=True))
    return record.data()


class ReadOnlyViolation(KgsError, PermissionError):
    """A statement that writes was sent down a read-only path."""


class CypherCall(msgspec.Struct, frozen=True):
    statement: str
    parameters: dict[str, Any]
    elapsed_ms: float
    rows: int


class WriteCounters(msgspec.Struct, frozen=True):
    nodes_created: int = 0
    nodes_deleted: int = 0
    relationships_created: int = 0
    relationships_deleted: int = 0
    properties_set: int = 0

    def __add__(self, other: WriteCounters) -> WriteCounters:
        return WriteCounters(
            *(
                a + b
                for a, b in zip(
                    msgspec.structs.astuple(self), msgspec.structs.astuple(other), strict=True
                )
            )
        )

    @property
    def total(self) -> int:
        return sum(msgspec.structs.astuple(self))


class WriteResult(msgspec.Struct, frozen=True):
    rows: list[Row]
    counters: WriteCounters


def open_driver(settings: Neo4jSettings, uri: str, password: str) -> Driver:
    return GraphDatabase.driver(
        uri,
        auth=(settings.user, password),
        connection_timeout=settings.connection_timeout_s,
        max_connection_pool_size=settings.max_pool_size,
        notifications_min_severity="OFF",
    )


class Graph:
    """Runs registry statements against one database with a per-query timeout."""

    def __init__(
        self,
        driver: Driver,
        registry: CypherRegistry,
        *,
        database: str,
        query_timeout_s: float,
        read_retry_s: float = DEFAULT_READ_RETRY_S,
    ) -> None:
        self.driver = driver
        self.registry = registry
        self.database = database
        self.query_timeout_s = query_timeout_s
        self.read_retry_s = read_retry_s
        # The most recent calls (a question's trace reads them from its own child Graph).
        self.calls: deque[CypherCall] = deque(maxlen=MAX_RECORDED_CALLS)

    def child(self) -> Graph:
        """The same driver and statements with its own call record (one per question)."""
        return Graph(
            self.driver, self.registry, database=self.database,
            query_timeout_s=self.query_timeout_s, read_retry_s=self.read_retry_s,
        )  # fmt: skip

    def read(self, name: str, **params: Any) -> list[Row]:
        """One auto-commit read. A managed transaction (BEGIN, RUN, COMMIT) costs a round trip
        more, about 0.4 ms per statement on this machine, and a question runs ten or more; a
        read needs no commit. The driver retries only managed transactions, so retryable
        failures (Neo4j unreachable, a transient error) are retried here, for `read_retry_s`
        like the driver's own retry of writes."""
        stmt = self.registry.get(name)
        if stmt.mode != "read":
            raise ReadOnlyViolation(f"{name} is declared '{stmt.mode}', not 'read'")
        query = self._query(with_vector_property(stmt, params), name)
        deadline = time.monotonic() + self.read_retry_s
        delay = _FIRST_RETRY_DELAY_S
        while True:
            try:
                started = time.perf_counter()
                with self.driver.session(
                    database=self.database, default_access_mode=READ_ACCESS
                ) as session:
                    result = session.run(query, params)
                    rows: list[Row]
                    if stmt.columns:  # packed: one record, its rows plain maps
                        rows = result.single(strict=True)["rows"]
                    else:
                        rows = [_row(record) for record in result]
                self._record(stmt, params, started, len(rows))
                return rows
            except (Neo4jError, DriverError) as error:
                pause = delay * random.uniform(1 - _RETRY_JITTER, 1 + _RETRY_JITTER)
                if not error.is_retryable() or time.monotonic() + pause > deadline:
                    raise
                time.sleep(pause)
                delay *= 2

    def write(self, name: str, **params: Any) -> WriteResult:
        return self.in_write_transaction(lambda tx: self.run_write(tx, name, **params), label=name)

    def run_write(
        self, tx: ManagedTransaction, name: str, *, reads: bool = False, **params: Any
    ) -> WriteResult:
        """Run one write statement inside a caller's transaction (for multi-statement units);
        `reads`: a read statement whose answer must see the transaction's own writes."""
        stmt = self.registry.get(name)
        if stmt.mode != ("read" if reads else "write"):
            raise ValueError(f"{name} is declared '{stmt.mode}', not 'write'")
        started = time.perf_counter()
        result = tx.run(stmt.text, params)
        rows = [_row(record) for record in result]
        counters = result.consume().counters
        self._record(stmt, params, started, len(rows))
        return WriteResult(
            rows,
            WriteCounters(
                nodes_created=counters.nodes_created,
                nodes_deleted=counters.nodes_deleted,
                relationships_created=counters.relationships_created,
                relationships_deleted=counters.relationships_deleted,
                properties_set=counters.properties_set,
            ),
        )

    def in_write_transaction(
        self, work: Callable[[ManagedTransaction], T], *, label: str = "unit"
    ) -> T:
        """One managed (retried) write transaction: `work` must be idempotent. Besides the
        driver's retries of transient errors, a unit that met a node deleted by a concurrent
        commit (EntityNotFound: matched, then gone before it was read, under READ COMMITTED)
        runs again, up to WRITE_RACE_ATTEMPTS times: seen when an upload and a delete of one
        document overlap."""
        for attempt in range(1, WRITE_RACE_ATTEMPTS + 1):
            try:
                with self._session() as session:
                    return session.execute_write(self._unit(work, label))
            except ClientError as error:
                if error.code != _ENTITY_GONE or attempt == WRITE_RACE_ATTEMPTS:
                    raise
        raise AssertionError("unreachable: the last attempt returns or raises")

    def schema(
        self,
        name: str,
        *,
        label: str | None = None,
        vector_property: str | None = None,
        **params: Any,
    ) -> None:
        """`label`: the scope label that replaces the token ScopeLabel in the statement (a
        schema command cannot take a label or a property as a parameter); only a hash label is
        accepted. `vector_property`: likewise for the token VectorProperty, only an embedding
        model's property (service/embedding_space.py)."""
        stmt = self.registry.get(name)
        if stmt.mode != "schema":
            raise ValueError(f"{name} is not a schema statement")
        for kind, token, value, pattern in (
            ("label", _LABEL_TOKEN, label, _SCOPE_LABEL),
            ("property", VECTOR_PROPERTY_TOKEN, vector_property, VECTOR_PROPERTY),
        ):
            if value is None:
                continue
            if not pattern.fullmatch(value) or token not in stmt.text:
                raise ValueError(f"{name}: refused {kind} {value!r}")
            stmt = msgspec.structs.replace(stmt, text=stmt.text.replace(token, value))
        with self._session() as session:
            started = time.perf_counter()
            session.run(self._query(stmt, name), params).consume()  # schema: auto-commit
            self._record(stmt, params, started, 0)

    def query_type(self, text: str, params: Mapping[str, Any] | None = None) -> str:
        """Neo4j's own classification of a statement via EXPLAIN: 'r', 'rw', 'w' or 's'."""
        with self._session() as session:
            summary = session.run(Query("EXPLAIN " + text), dict(params or {})).consume()
            return str(summary.query_type)

    def read_text(self, text: str, params: Mapping[str, Any]) -> list[Row]:
        """Run person-supplied Cypher (`kgs cypher`) only if EXPLAIN says it only reads."""
        kind = self.query_type(text, params)
        if kind != "r":
            raise ReadOnlyViolation(f"refused: the statement is of type {kind!r}, only reads run")

        def rows(tx: ManagedTransaction) -> list[Row]:
            return [_row(record) for record in tx.run(text, dict(params))]

        with self._session() as session:
            return session.execute_read(self._unit(rows, "kgs cypher"))

    @contextmanager
    def _session(self) -> Iterator[Session]:
        with self.driver.session(database=self.database) as session:
            yield session

    def _metadata(self, label: str) -> dict[str, str]:
        """Transaction metadata, visible in SHOW TRANSACTIONS and query.log."""
        return {"kgs.statement": label}

    def _query(self, stmt: Statement, label: str) -> Query:
        text = stmt.packed_text if stmt.columns else stmt.text  # columns: reads only
        return Query(text, metadata=self._metadata(label), timeout=self.query_timeout_s)

    def _unit(self, work: Callable[..., T], label: str) -> Callable[..., T]:
        return unit_of_work(timeout=self.query_timeout_s, metadata=self._metadata(label))(work)

    def _record(
        self, stmt: Statement, params: Mapping[str, Any], started: float, rows: int
    ) -> None:
        elapsed = (time.perf_counter() - started) * 1000
        shown = {k: v for k, v in params.items() if k not in _BULK_PARAMS}
        self.calls.append(CypherCall(stmt.name, shown, round(elapsed, 3), rows))


WRITE_RACE_ATTEMPTS = 3  # runs of one write unit that meets a concurrently deleted node
_ENTITY_GONE = "Neo.ClientError.Statement.EntityNotFound"

# The only identifier ever substituted into a statement: a scope's hash label (service/scope.py).
_LABEL_TOKEN = "ScopeLabel"
_SCOPE_LABEL = re.compile(r"Scope_s[0-9a-f]{16}")
# Row batches and vectors are too large to echo into a trace; their statements name them.
_BULK_PARAMS = frozenset({"rows", "embedding_rows", "sourceText", "structure"})
