"""One model call at a time, with the texts of concurrent callers merged into it.

A model call over a batch of texts costs little more than a call over one of them, and two
calls at once only oversubscribe the cores. So callers line up: the first runs the model; the
ones that arrive meanwhile wait, and the next call embeds all of their texts together. Each
call is led by the caller that was waiting longest, so no caller serves others indefinitely.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

__all__ = ["CallBatcher"]

Vectors = list[list[float]]


class _Call:
    __slots__ = ("done", "error", "lead", "texts", "vectors")

    def __init__(self, texts: Sequence[str]) -> None:
        self.texts = list(texts)
        self.vectors: Vectors = []
        self.error: BaseException | None = None
        self.lead = False  # this caller runs the next model call
        self.done = threading.Event()


class CallBatcher:
    """Serialises calls of `encode` (texts -> one vector per text) and merges waiting ones."""

    def __init__(self, encode: Callable[[list[str]], Vectors]) -> None:
        self._encode = encode
        self._guard = threading.Lock()
        self._waiting: list[_Call] = []
        self._busy = False
        self.calls = 0  # model calls made (tests and benchmarks read these two)
        self.merged = 0  # callers served by a call another caller led

    def run(self, texts: Sequence[str]) -> Vectors:
        call = _Call(texts)
        with self._guard:
            self._waiting.append(call)
            if not self._busy:
                self._busy = call.lead = True
        if not call.lead:
            call.done.wait()  # served by another caller's model call, or handed the lead
        if call.lead:
            self._lead()
        if call.error is not None:
            raise call.error
        return call.vectors

    def _lead(self) -> None:
        with self._guard:
            batch, self._waiting = self._waiting, []
        texts = list(dict.fromkeys(t for call in batch for t in call.texts))
        try:
            by_text = dict(zip(texts, self._encode(texts), strict=True))
        except BaseException as error:  # every caller of the batch sees the model's failure
            for call in batch:
                call.error = error
        else:
            for call in batch:  # copies: callers own their vectors
                call.vectors = [list(by_text[t]) for t in call.texts]
        with self._guard:
            self.calls += 1
            self.merged += len(batch) - 1
            following = self._waiting[0] if self._waiting else None
            if following is None:
                self._busy = False
            else:
                following.lead = True
        for call in batch:
            call.lead = False
            call.done.set()
        if following is not None:
            following.done.set()
