"""Run a question file the way a client meets kgs: through the running API (`--url`) or through
the same in-process answer path `kgs ask` uses. Either way each question yields the public
response with its trace, from which the outcome is read (docs/evaluation.md)."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from service.errors import KgsError
from service.evaluation.questions import EvalQuestion
from service.evaluation.scoring import Outcome, token_f1

__all__ = ["Ask", "EvalRequestError", "http_asker", "outcome_of", "run_questions"]

# (question, scope, top_k) -> the response with its trace
Ask = Callable[[str, str | None, int], dict[str, Any]]
HTTP_TIMEOUT_S = 120.0


class EvalRequestError(KgsError, RuntimeError):
    """The API refused or failed a question; the message carries its problem detail."""


def http_asker(url: str, key: str | None, *, timeout_s: float = HTTP_TIMEOUT_S) -> Ask:
    """POST /v1/query?trace=true on a running service."""
    endpoint = url.rstrip("/") + "/v1/query?trace=true"

    def ask(question: str, scope: str | None, top_k: int) -> dict[str, Any]:
        body: dict[str, Any] = {"query": question, "topK": top_k}
        if scope:
            body["scope"] = scope
        headers = {"Content-Type": "application/json"}
        if key:
            headers["X-API-Key"] = key
        request = urllib.request.Request(
            endpoint, data=json.dumps(body).encode(), headers=headers, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=timeout_s) as reply:
                result: dict[str, Any] = json.loads(reply.read())
                return result
        except urllib.error.HTTPError as error:
            detail = error.read().decode("utf-8", "replace")[:500]
            raise EvalRequestError(f"HTTP {error.code} for {question!r}: {detail}") from None
        except urllib.error.URLError as error:
            raise EvalRequestError(f"{endpoint}: {error.reason}") from None

    return ask


def run_questions(
    ask: Ask, questions: Sequence[EvalQuestion], scope: str | None, top_k: int
) -> Iterator[Outcome]:
    for q in questions:
        started = time.perf_counter()
        response = ask(q.question, q.scope or scope, top_k)
        yield outcome_of(q, response, (time.perf_counter() - started) * 1000)


def outcome_of(q: EvalQuestion, response: dict[str, Any], latency_ms: float) -> Outcome:
    trace = response.get("trace") or {}
    documents = ranked_documents(response)
    gold = {_plain_path(g) for g in q.gold}
    ranks = tuple(i for i, d in enumerate(documents, start=1) if _plain_path(d) in gold)
    cited = {_plain_path(str(c.get("path") or "")) for c in response.get("citations") or ()}
    review = trace.get("ragSufficiencyReview") or {}
    answer = str(response.get("answer", ""))
    status = str(response.get("status", ""))
    return Outcome(
        id=q.id or q.question,
        question=q.question,
        answerable=q.answerable,
        status=status,
        answer=answer,
        documents=tuple(documents),
        gold_rank=ranks[0] if ranks else None,
        has_gold=bool(gold),
        gold_ranks=ranks,
        gold_count=len(gold),
        gold_cited=len(gold & cited),
        # An abstention's text is a refusal, not an answer: it scores 0 against gold answers.
        f1=(0.0 if status == "abstained" else token_f1(answer, q.answers)) if q.answers else None,
        latency_ms=round(latency_ms, 2),
        answerability=review.get("answerability"),
        answerability_inputs=review.get("answerabilityInputs"),
        reasons=tuple(review.get("reasons") or ()),
    )


def ranked_documents(response: dict[str, Any]) -> list[str]:
    """The response's distinct documents, best first: the trace's document ranking, else the
    documents of its hits, else of its citations."""
    retrieval = (response.get("trace") or {}).get("retrieval") or {}
    rows = retrieval.get("documents") or retrieval.get("hits") or response.get("citations") or []
    return list(dict.fromkeys(str(r["path"]) for r in rows if r.get("path")))


def _plain_path(path: str) -> str:
    return path.removeprefix("./").strip("/")
