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
import contextlib
import itertools
import logging
import multiprocessing
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial
from multiprocessing.connection import Connection as PipeConnection
from typing import Any

import msgspec

from service.answer.generation import generation_client
from service.api.context import TracedGraph, trace_id_var
from service.api.errors import neo4j_error_kind, problem, problem_for
from service.api.failure_records import AnswerFailed, failure_stage, failure_status
from service.api.metrics import count_neo4j_error
from service.api.process import (
    WorkerReport,
    freeze_startup_objects,
    resident_bytes,
    service_graph,
)
from service.api.shared_model import ModelAddress, ModelClient
from service.db.graph import Graph
from service.db.selection import Connection
from service.errors import KgsError
from service.pipeline.plan import Depth
from service.question.runner import QueryEmbedder, answer_question, stage_settings
from service.question.scope_choice import answer_best_scope
from service.settings import Settings
from service.text.text_cache import cache_stats, configure_text_caches

__all__ = ["AnswerJob", "AnswerPool", "answer_job"]

log = logging.getLogger("kgs.api")

WORKER_MIN_LIFETIME_S = 5.0  # a worker that dies sooner is replaced only after a pause:
WORKER_RESPAWN_DELAY_S = 2.0


class AnswerJob(msgspec.Struct, frozen=True, kw_only=True):
    query: str
    scope: str | None  # None: the question named none; answered from the best of `scopes`
    scopes: tuple[str, ...]  # the scopes to search, all readable by the request's key
    depth: Depth | None
    top_k: int | None
    scope_candidates: int  # scopes retrieved in full when none is named (ApiSettings)
    trace_id: str
    generate: bool = False  # a configured provider writes the answer (service/answer/generation.py)


def answer_job(
    graph: Graph,
    embedder: QueryEmbedder | None,
    job: AnswerJob,
    settings: Settings,
    on_sentence: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """The answer, in a worker process or a thread of the service (`on_sentence`: the stream's
    written sentences, in a thread only)."""
    generator = generation_client(settings.llm, settings.generation) if job.generate else None
    try:
        if job.scope is not None:
            return answer_question(graph, embedder, job.query, scope=job.scope, depth=job.depth,
                                   top_k=job.top_k, generator=generator,
                                   on_sentence=on_sentence, **stage_settings(settings))  # fmt: skip
        return answer_best_scope(graph, embedder, job.query, scopes=job.scopes, depth=job.depth,
                                 top_k=job.top_k, candidates=job.scope_candidates,
                                 generator=generator, on_sentence=on_sentence,
                                 **stage_settings(settings))  # fmt: skip
    finally:
        if generator is not None:
            generator.close()


class WorkerProblem(msgspec.Struct, frozen=True, kw_only=True):
    """An answer that failed, as the problem the service answers with."""

    status: int
    detail: str
    headers: dict[str, str] | None
    neo4j_error: str | None  # counted in the service's metrics (a worker's are not scraped)
    stage: str  # where it surfaced, and its type: the failure record's (failure_records.py)
    error_type: str


class WorkerStopped(KgsError, RuntimeError):
    """The worker holding an answer exited before it sent the answer back."""


class _Worker:
    """One worker process, the pipe to it, and the answers it holds (by job number). A reader
    thread delivers each answer as it arrives; at the pipe's end (the process died) it fails the
    answers still held and asks the pool for a replacement."""

    def __init__(
        self, initargs: tuple[Any, ...], threads: int, on_exit: Callable[[_Worker], None]
    ) -> None:
        context = multiprocessing.get_context("spawn")  # not fork: this process has threads
        self.pipe, child = context.Pipe()
        self.process = context.Process(
            target=_worker_main, args=(child, threads, *initargs), name="kgs-answer-worker",
            daemon=True,
        )  # fmt: skip
        self.process.start()
        self.started = time.monotonic()
        child.close()  # the worker holds the only other end: its exit ends our reads
        self.pending: dict[int, Future[Any]] = {}
        self.alive = True  # False from the moment its pipe ends: no answer is sent to it again
        self.report: WorkerReport | None = None  # the latest, sent with its last answer
        self._send_lock = threading.Lock()
        self._on_exit = on_exit
        threading.Thread(target=self._read, name="kgs-answer-reader", daemon=True).start()

    def submit(self, number: int, job: AnswerJob, future: Future[Any]) -> None:
        with self._send_lock:
            self.pending[number] = future
            self.pipe.send((number, job))

    def _read(self) -> None:
        while True:
            try:
                number, outcome, self.report = self.pipe.recv()
            except (EOFError, OSError):
                break
            future = self.pending.pop(number, None)
            if future is not None and future.set_running_or_notify_cancel():
                future.set_result(outcome)
        with self._send_lock:
            self.alive = False
            held, self.pending = self.pending, {}
        for future in held.values():
            if future.set_running_or_notify_cancel():
                future.set_exception(WorkerStopped())
        self._on_exit(self)

    def stop(self, timeout_s: float) -> None:
        """Let the answers in hand finish, then end the process (at the latest after timeout)."""
        with self._send_lock, contextlib.suppress(OSError):
            self.pipe.send(None)
        self.process.join(timeout_s)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()


class AnswerPool:
    """`answer_processes` workers of `answer_threads` threads each (a thread waits on Neo4j or the
    model about half of an answer's time; another one computes meanwhile). Each answer goes to
    the worker holding the fewest. A worker that dies (killed, out of memory) is replaced at
    once: the answers it held get 503, the next ones go to the others and to its successor."""

    def __init__(
        self, settings: Settings, connection: Connection, model: ModelAddress | None
    ) -> None:
        self._initargs = (settings, connection, model)
        self._threads = settings.api.answer_threads
        self._grace_s = settings.api.shutdown_grace_s
        self._lock = threading.Lock()
        self._numbers = itertools.count()
        self._closing = False
        self._workers = [self._spawn() for _ in range(settings.api.answer_processes)]

    def _spawn(self) -> _Worker:
        return _Worker(self._initargs, self._threads, self._replace)

    def _replace(self, dead: _Worker) -> None:
        if time.monotonic() - dead.started < WORKER_MIN_LIFETIME_S:
            # A worker that cannot even start (a broken install) must not respawn in a tight
            # loop; this runs in the dead worker's own reader thread, which nothing waits for.
            time.sleep(WORKER_RESPAWN_DELAY_S)
        with self._lock:
            if self._closing or dead not in self._workers:
                return
            log.error("answer worker %d exited (%s); starting another", dead.process.pid,
                      dead.process.exitcode)  # fmt: skip
            self._workers[self._workers.index(dead)] = self._spawn()

    @property
    def pids(self) -> list[int | None]:
        return [w.process.pid for w in self._workers]

    def reports(self) -> list[tuple[int, WorkerReport]]:
        """The latest report of each live worker that answered once, by its slot."""
        with self._lock:
            workers = list(enumerate(self._workers))
        return [(slot, w.report) for slot, w in workers if w.alive and w.report is not None]

    async def answer(self, job: AnswerJob) -> dict[str, Any]:
        """The answer; AnswerFailed carries the problem to answer with otherwise."""
        future: Future[Any] = Future()
        with self._lock:
            alive = [w for w in self._workers if w.alive]
        if not alive:
            raise AnswerFailed(problem(503, "the answer workers are restarting; try again"),
                               "answer-pool", "workers-restarting")  # fmt: skip
        worker = min(alive, key=lambda w: len(w.pending))
        try:
            worker.submit(next(self._numbers), job, future)
            outcome = await asyncio.wrap_future(future)
        except (WorkerStopped, OSError):
            raise AnswerFailed(problem(503, "an answer worker stopped; try again"),
                               "answer-pool", "worker-stopped") from None  # fmt: skip
        if isinstance(outcome, WorkerProblem):
            if outcome.neo4j_error:
                count_neo4j_error(outcome.neo4j_error)
            raise AnswerFailed(problem(outcome.status, outcome.detail, headers=outcome.headers),
                               outcome.stage, outcome.error_type)  # fmt: skip
        return outcome  # type: ignore[no-any-return]

    def close(self) -> None:
        with self._lock:
            self._closing = True
        for worker in self._workers:
            worker.stop(self._grace_s)


# --- inside a worker process ----------------------------------------------------------------


def _open_worker(
    settings: Settings, connection: Connection, model: ModelAddress | None
) -> tuple[Graph, ModelClient | None]:
    from service.api.logs import configure_json_logging

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the group; the service stops us
    configure_json_logging()
    configure_text_caches(settings.text_cache)
    opened = (
        service_graph(settings, connection),
        (
            ModelClient(model, settings.embedding.model, settings.embedding.dimensions)
            if model
            else None
        ),
    )
    freeze_startup_objects(settings.api.gc_young_threshold)
    return opened


def _worker_main(
    pipe: PipeConnection, threads: int, settings: Settings, connection: Connection,
    model: ModelAddress | None,
) -> None:  # fmt: skip
    """Receive jobs until the service says stop (None) or goes away; answer each in a thread."""
    graph, model_client = _open_worker(settings, connection, model)
    send_lock = threading.Lock()

    def reply(number: int, done: Future[dict[str, Any] | WorkerProblem]) -> None:
        outcome = done.result()  # _run_job returns its failures, never raises
        report = _report()
        with send_lock:
            try:
                pipe.send((number, outcome, report))
            except OSError:
                return  # the service went away: nobody waits for it
            except Exception:  # an answer that cannot be pickled is a bug; never leave it unsent
                log.exception("an answer could not be sent to the service")
                pipe.send((number, WorkerProblem(
                    status=500, detail="unexpected error (see the service log by traceId)",
                    headers=None, neo4j_error=None, stage="answer-pool", error_type="unsendable",
                ), report))  # fmt: skip

    with ThreadPoolExecutor(threads, thread_name_prefix="kgs-answer") as pool:
        while True:
            try:
                message = pipe.recv()
            except (EOFError, OSError):
                break
            if message is None:
                break
            number, job = message
            pool.submit(_run_job, graph, model_client, job, settings).add_done_callback(
                partial(reply, number)
            )


def _report() -> WorkerReport:
    return WorkerReport(rss_bytes=resident_bytes(), caches=tuple(cache_stats()))


def _run_job(
    graph: Graph, model: ModelClient | None, job: AnswerJob, settings: Settings
) -> dict[str, Any] | WorkerProblem:
    token = trace_id_var.set(job.trace_id)  # logs and problems carry the request's id
    try:
        return answer_job(TracedGraph(graph, job.trace_id), model, job, settings)
    except Exception as error:  # every failure crosses the boundary as its problem
        answer = problem_for(error)  # logs a bug with its traceback, here in the worker
        return WorkerProblem(
            status=answer.status_code, detail=str(answer.detail), headers=answer.headers or None,
            neo4j_error=neo4j_error_kind(error), stage=failure_stage(error),
            error_type=failure_status(error)[1],
        )  # fmt: skip
    finally:
        trace_id_var.reset(token)
