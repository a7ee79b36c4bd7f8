"""CallBatcher: one model call at a time; callers that arrive while it runs share the next
call; every caller gets its own vectors, in its own order; a failure reaches every caller of
the failed call and no later one."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import pytest

from ingest.batching import CallBatcher
from service.question.runner import embed_in_chunks


class _Model:
    """Blocks each call until released, records the batches and whether two ever overlapped."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []
        self.running = 0
        self.overlapped = False
        self.started = threading.Event()
        self.release = threading.Event()
        self.fail_on: str | None = None
        self._lock = threading.Lock()

    def encode(self, texts: list[str]) -> list[list[float]]:
        with self._lock:
            self.running += 1
            self.overlapped |= self.running > 1
            self.batches.append(list(texts))
        self.started.set()
        self.release.wait(timeout=10)
        with self._lock:
            self.running -= 1
        if self.fail_on in texts:
            raise RuntimeError("model failed")
        return [[float(len(t)), float(ord(t[0]))] for t in texts]


def _wait_for_waiters(batcher: CallBatcher, count: int) -> None:
    for _ in range(1000):
        with batcher._guard:
            if len(batcher._waiting) >= count:
                return
        threading.Event().wait(0.005)
    raise AssertionError("callers never queued")


def test_waiting_callers_share_the_next_call() -> None:
    model = _Model()
    batcher = CallBatcher(model.encode)
    with ThreadPoolExecutor(max_workers=4) as pool:
        first = pool.submit(batcher.run, ["a"])
        model.started.wait(timeout=10)  # "a" is in the model; the others queue behind it
        later = [pool.submit(batcher.run, texts) for texts in (["bb", "a"], ["ccc"], ["bb"])]
        _wait_for_waiters(batcher, 3)
        model.release.set()
        results = [first.result(timeout=10), *(f.result(timeout=10) for f in later)]
    assert model.batches[0] == ["a"]
    assert sorted(model.batches[1]) == ["a", "bb", "ccc"]  # each text once
    assert len(model.batches) == 2 and not model.overlapped
    assert results == [[[1.0, 97.0]], [[2.0, 98.0], [1.0, 97.0]], [[3.0, 99.0]], [[2.0, 98.0]]]
    assert (batcher.calls, batcher.merged) == (2, 2)
    results[1][0][0] = -1.0  # vectors are the caller's own
    assert results[3][0][0] == 2.0


def test_a_failure_reaches_its_batch_only() -> None:
    model = _Model()
    model.fail_on = "bad"
    batcher = CallBatcher(model.encode)
    with ThreadPoolExecutor(max_workers=3) as pool:
        first = pool.submit(batcher.run, ["ok"])
        model.started.wait(timeout=10)
        bad = [pool.submit(batcher.run, ["bad"]), pool.submit(batcher.run, ["fine"])]
        _wait_for_waiters(batcher, 2)
        model.release.set()
        assert first.result(timeout=10) == [[2.0, 111.0]]
        for future in bad:  # "fine" shared the call that failed
            with pytest.raises(RuntimeError, match="model failed"):
                future.result(timeout=10)
    assert batcher.run(["fine"]) == [[4.0, 102.0]]  # the batcher is usable afterwards
    assert not batcher._busy


def test_alone_a_caller_runs_its_own_call() -> None:
    model = _Model()
    model.release.set()
    batcher = CallBatcher(model.encode)
    assert batcher.run(["x", "y", "x"]) == [[1.0, 120.0], [1.0, 121.0], [1.0, 120.0]]
    assert model.batches == [["x", "y"]] and (batcher.calls, batcher.merged) == (1, 0)


class _Recording:
    """Embeds a text as [its length] and records the size of every model call."""

    def __init__(self) -> None:
        self.calls: list[int] = []

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls.append(len(texts))
        return [[float(len(t))] for t in texts]


@pytest.mark.parametrize(("size", "calls"), [(4, [4, 4, 4, 4, 4, 1]), (21, [21]), (0, [1] * 21)])
def test_answerability_texts_reach_the_model_in_chunks(size: int, calls: list[int]) -> None:
    texts = ["x" * n for n in range(1, 22)]
    model = _Recording()
    assert embed_in_chunks(model, texts, size) == [[float(n)] for n in range(1, 22)]
    assert model.calls == calls
