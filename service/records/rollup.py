"""What one answer adds to the operations rollups (pure: no I/O). The record writer counts each
new record into hourly and daily nodes beside it (cypher/ops/count_answers.cypher), so that the
operations routes read a number of rollups that depends on the window and the scopes, never on
how many answers were given (docs/operations.md, "Operations API").

- OpsHour {scope, hourMs, status}: answers;
- OpsLatencyDay {scope, dayMs, stage}: a histogram of the stage's time over LATENCY_BOUNDS_MS
  (stage "total": their sum);
- OpsCitedDay {scope, dayMs, documentId}: citations of the document;
- OpsGapDay {scope, dayMs, key, status}: questions not answered (GAP_STATUSES), grouped by
  their key words, with a few wordings and the newest answer's trace id (escalation)."""

from __future__ import annotations

import bisect
from typing import Any

from service.records.model import AnswerRecord
from service.text.language import function_word
from service.text.tokens import words

__all__ = [
    "DAY_MS",
    "GAP_STATUSES",
    "HOUR_MS",
    "LATENCY_BOUNDS_MS",
    "TOTAL_STAGE",
    "answer_counts",
    "gap_words",
    "latency_bin",
]

HOUR_MS = 3_600_000
DAY_MS = 24 * HOUR_MS
TOTAL_STAGE = "total"  # the stages' sum: the answer path's own time
GAP_STATUSES = frozenset({"abstained", "partial", "refused"})
# Upper bounds of the latency histogram's bins (ms); the last bin holds everything slower.
LATENCY_BOUNDS_MS = (1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1_000.0, 2_000.0,
                     5_000.0, 10_000.0, 30_000.0)  # fmt: skip
_QUESTION_WORDS = frozenset({
    "what", "which", "who", "whom", "whose", "when", "where", "why", "how", "is", "are", "was",
    "were", "do", "does", "did", "can", "could", "should", "would", "will", "shall", "may",
    "might", "must", "i", "me", "my", "we", "our", "you", "your", "it", "its", "there", "please",
    "tell",
})  # fmt: skip


def latency_bin(ms: float) -> int:
    """The histogram bin of a stage time: 0 .. len(LATENCY_BOUNDS_MS)."""
    return bisect.bisect_left(LATENCY_BOUNDS_MS, ms)


def gap_words(question: str) -> tuple[str, ...]:
    """The question's key words, sorted, without question and function words, a plural's final
    s folded: 'How long is the warranty?' and 'warranty: how long?' share one group."""
    kept = {
        _fold(word)
        for word in words(question)
        if len(word) > 1 and word not in _QUESTION_WORDS and not function_word(word)
    }
    return tuple(sorted(kept))


def _fold(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def answer_counts(record: AnswerRecord) -> dict[str, Any]:
    """One row of cypher/ops/count_answers.cypher's $answers."""
    hour_ms = record.created_at_ms - record.created_at_ms % HOUR_MS
    total_ms = round(sum(record.timings_ms.values()), 2)
    gap = None
    if record.status in GAP_STATUSES:
        key_words = gap_words(record.query)
        gap = {"key": " ".join(key_words) or record.query.strip().lower(),
               "words": list(key_words), "query": record.query}  # fmt: skip
    return {
        "scope": record.scope,
        "status": record.status,
        "hourMs": hour_ms,
        "dayMs": record.created_at_ms - record.created_at_ms % DAY_MS,
        "atMs": record.created_at_ms,
        "traceId": record.id,
        "stages": [
            {"stage": stage, "bin": latency_bin(ms), "ms": float(ms)}
            for stage, ms in sorted({**record.timings_ms, TOTAL_STAGE: total_ms}.items())
        ],
        "documents": sorted({span.document_id for span in record.cited}),
        "gap": gap,
    }
