"""Answers computed in worker processes (KGS_API_ANSWER_PROCESSES, default 2).

Why: an answer is ~50 ms of Python (span selection, the conflict scan, composing, reviewing)
and one process runs Python one thread at a time. Under load, answers queued for that lock while
the second core sat idle (32 clients: the service at 87% of one core, the machine at 60% of two).
Workers each hold a Neo4j driver and the answer pipeline but not the model: their embeddings come
from the service process (service/api/shared_model.py), so the model is loaded once.

What stays in the service process: HTTP, keys and limits, the stored traces, metrics, reads of
documents and knowledge points, the stream (its progress events follow each Cypher statement as it
finishes, in the thread that runs it). A worker returns the answer or the problem its error maps
to (service/api/errors.py), never an exception object: driver errors do not survive pickling.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import signal
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import msgspec

from service.api.context import TracedGraph, trace_id_var
from service.api.errors import neo4j_error_kind, problem, problem_for
from service.api.metrics import count_neo4j_error
from service.api.shared_model import ModelAddress, ModelClient
from service.db.graph import Graph
from service.db.selection import Connection
from service.pipeline.plan import Depth
from service.pipeline.runner import answer_question
from service.settings import Settings

__all__ = ["AnswerJob", "AnswerPool"]

log = logging.getLogger("kgs.api")


class AnswerJob(msgspec.Struct, frozen=True, kw_only=True):
    query: str
    scope: str
    depth: Depth | None
    top_k: int | None
    trace_id: str


class WorkerProblem(msgspec.Struct, frozen=True, kw_only=True):
    """An answer that failed, as the problem the service answers with."""

    status: int
    detail: str
    headers: dict[str, str] | None
    neo4j_error: str | None  # counted in the service's metrics (a worker's are not scraped)


class AnswerPool:
    """`processes` workers; a worker that dies (killed, out of memory) breaks the executor, which
    is replaced: the requests it held get 503, the next ones a fresh worker."""

    def __init__(
        self, settings: Settings, connection: Connection, model: ModelAddress | None
    ) -> None:
        self._initargs = (settings, connection, model)
        self._processes = settings.api.answer_processes
        self._lock = threading.Lock()
        self._executor = self._start()

    def _start(self) -> ProcessPoolExecutor:
        # spawn, not fork: the service process has threads (driver, model, event loop).
        return ProcessPoolExecutor(
            max_workers=self._processes, mp_context=multiprocessing.get_context("spawn"),
            initializer=_start_worker, initargs=self._initargs,
        )  # fmt: skip

    async def answer(self, job: AnswerJob) -> dict[str, Any]:
        executor = self._executor
        try:
            outcome = await asyncio.wrap_future(executor.submit(_run_job, job))
        except BrokenProcessPool:
            self._replace(executor)
            log.error("an answer worker process stopped; workers restarted")
            raise problem(503, "an answer worker stopped; try again") from None
        if isinstance(outcome, WorkerProblem):
            if outcome.neo4j_error:
                count_neo4j_error(outcome.neo4j_error)
            raise problem(outcome.status, outcome.detail, headers=outcome.headers)
        return outcome

    def _replace(self, broken: ProcessPoolExecutor) -> None:
        with self._lock:
            if self._executor is broken:
                broken.shutdown(wait=False, cancel_futures=True)
                self._executor = self._start()

    def close(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)


# --- inside a worker process ----------------------------------------------------------------

_worker: tuple[Graph, ModelClient | None] | None = None


def _start_worker(settings: Settings, connection: Connection, model: ModelAddress | None) -> None:
    global _worker
    from service.api.logs import configure_json_logging
    from service.api.state import service_graph

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the group; the service stops us
    configure_json_logging()
    _worker = (service_graph(settings, connection), ModelClient(model) if model else None)


def _run_job(job: AnswerJob) -> dict[str, Any] | WorkerProblem:
    assert _worker is not None, "the worker initializer did not run"
    graph, model = _worker
    token = trace_id_var.set(job.trace_id)  # logs and problems carry the request's id
    try:
        return answer_question(
            TracedGraph(graph, job.trace_id), model, job.query, scope=job.scope,
            depth=job.depth, top_k=job.top_k,
        )  # fmt: skip
    except Exception as error:  # every failure crosses the boundary as its problem
        answer = problem_for(error)  # logs a bug with its traceback, here in the worker
        return WorkerProblem(
            status=answer.status_code, detail=str(answer.detail), headers=answer.headers or None,
            neo4j_error=neo4j_error_kind(error),
        )  # fmt: skip
    finally:
        trace_id_var.reset(token)
