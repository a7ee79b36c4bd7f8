"""Pure scoring of `kgs eval`: per-question outcomes in, one report out (docs/evaluation.md)."""

from __future__ import annotations

import math
import re
import string
from collections import Counter
from collections.abc import Sequence

import msgspec

__all__ = ["Outcome", "Report", "percentile", "report", "token_f1"]

CUTOFFS = (1, 5, 10)
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = str.maketrans("", "", string.punctuation)


class Outcome(msgspec.Struct, frozen=True, kw_only=True):
    """One question as a client saw it."""

    id: str
    question: str
    answerable: bool
    status: str
    answer: str
    documents: tuple[str, ...]  # the ranked distinct document paths of the response
    gold_rank: int | None  # 1-based rank of the first gold document; None: not ranked / no gold
    has_gold: bool
    gold_ranks: tuple[int, ...] = ()  # 1-based ranks of every gold document ranked
    gold_count: int = 0  # gold documents the question names
    gold_cited: int = 0  # of them, those the answer cites
    f1: float | None  # token F1 of the answer against the gold answers (None: none given)
    latency_ms: float
    answerability: float | None = None
    answerability_inputs: dict[str, float] | None = None
    reasons: tuple[str, ...] = ()


class Report(msgspec.Struct, frozen=True, kw_only=True):
    questions: int
    answerable: int
    unanswerable: int
    recall: dict[str, float | None]  # "@1", "@5", "@10" over answerable questions with gold
    # Gold documents among the first k ranked, over k (mean over answerable questions with gold).
    precision: dict[str, float | None]
    mrr_at_10: float | None  # mean reciprocal rank of the first gold document, 0 past rank 10
    evidence_coverage: float | None  # share of all gold documents that answers cite
    answerable_refused: float | None  # share of answerable questions abstained
    unanswerable_abstained: float | None
    balanced_abstention: float | None  # mean of answered-answerable and abstained-unanswerable
    answer_f1: float | None  # mean over answerable questions with answers (abstention = 0)
    answer_f1_answered: float | None  # the same over the answered ones only
    conflict_rate: float  # share of all questions answered with status conflict
    statuses: dict[str, int]
    latency_p50_ms: float
    latency_p95_ms: float


def normalise(text: str) -> list[str]:
    """SQuAD's answer normalisation: lower case, no punctuation, no articles, single spaces."""
    text = _ARTICLES.sub(" ", text.lower().translate(_PUNCTUATION))
    return text.split()


def token_f1(prediction: str, golds: Sequence[str]) -> float:
    """The best token F1 of the prediction against any gold answer."""
    predicted = normalise(prediction)
    best = 0.0
    for gold in golds:
        expected = normalise(gold)
        common = sum((Counter(predicted) & Counter(expected)).values())
        if not common:
            continue
        precision, recall = common / len(predicted), common / len(expected)
        best = max(best, 2 * precision * recall / (precision + recall))
    return best


def percentile(values: Sequence[float], share: float) -> float:
    """Nearest-rank percentile (0 for no values)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered), max(1, math.ceil(share * len(ordered)))) - 1]


def report(outcomes: Sequence[Outcome]) -> Report:
    answerable = [o for o in outcomes if o.answerable]
    unanswerable = [o for o in outcomes if not o.answerable]
    with_gold = [o for o in answerable if o.has_gold]
    recall: dict[str, float | None] = {
        f"@{k}": _share([o for o in with_gold if o.gold_rank is not None and o.gold_rank <= k],
                        with_gold)
        for k in CUTOFFS
    }  # fmt: skip
    precision: dict[str, float | None] = {
        f"@{k}": _mean([sum(1 for r in o.gold_ranks if r <= k) / k for o in with_gold])
        for k in CUTOFFS
    }
    reciprocal = [1 / o.gold_rank if o.gold_rank and o.gold_rank <= 10 else 0.0 for o in with_gold]
    gold_total = sum(o.gold_count for o in with_gold)
    coverage = round(sum(o.gold_cited for o in with_gold) / gold_total, 4) if gold_total else None
    refused = _share([o for o in answerable if o.status == "abstained"], answerable)
    abstained = _share([o for o in unanswerable if o.status == "abstained"], unanswerable)
    balanced = (
        ((1 - refused) + abstained) / 2 if refused is not None and abstained is not None else None
    )
    scored = [o for o in answerable if o.f1 is not None]
    answered = [o for o in scored if o.status != "abstained"]
    latencies = [o.latency_ms for o in outcomes]
    return Report(
        questions=len(outcomes),
        answerable=len(answerable),
        unanswerable=len(unanswerable),
        recall=recall,
        precision=precision,
        mrr_at_10=_mean(reciprocal),
        evidence_coverage=coverage,
        answerable_refused=refused,
        unanswerable_abstained=abstained,
        balanced_abstention=balanced,
        answer_f1=_mean([o.f1 or 0.0 for o in scored]),
        answer_f1_answered=_mean([o.f1 or 0.0 for o in answered]),
        conflict_rate=_share([o for o in outcomes if o.status == "conflict"], outcomes) or 0.0,
        statuses=dict(Counter(o.status for o in outcomes).most_common()),
        latency_p50_ms=round(percentile(latencies, 0.50), 1),
        latency_p95_ms=round(percentile(latencies, 0.95), 1),
    )


def _share(part: Sequence[object], whole: Sequence[object]) -> float | None:
    return round(len(part) / len(whole), 4) if whole else None


def _mean(values: Sequence[float]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None
