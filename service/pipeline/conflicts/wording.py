"""The sentence that tells a reader about a conflict, quoting both sides."""

from __future__ import annotations

from service.pipeline.conflicts.model import Conflict
from service.text.facts import (
    Fact,
)

__all__ = ["conflict_text"]

# --- the conflict's sentence ------------------------------------------------------------------


def conflict_text(conflict: Conflict, quote_chars: int = 160) -> str:
    """One plain sentence naming every value with its source, never picking one."""
    parts = [
        f'{side.path} (line {side.line}) gives {side.value} ("{_quote(side, quote_chars)}")'
        for side in conflict.sides
    ]
    listed = ", ".join(parts[:-1]) + f", while {parts[-1]}"
    return f"The sources disagree on {_label(conflict)}: {listed}."


def _label(conflict: Conflict) -> str:
    if conflict.kind == "aligned":
        before, _, after = conflict.subject.partition(" … ")
        label = f'the statement "… {before} … {after} …"'
    else:
        label = f"the {conflict.subject}"
    conditions = [v if dim != "version" else f"version {v}" for dim, v in conflict.scope]
    return label + (f" ({', '.join(conditions)})" if conditions else "")


def _quote(side: Fact, limit: int) -> str:
    """The source sentence, or a window of it around the value when it is long."""
    sentence = " ".join(side.sentence.split())
    if len(sentence) <= limit:
        return sentence
    value_at = max(0, side.value_start - side.sentence_start)
    flat_at = len(" ".join(side.sentence[:value_at].split()))
    start = max(0, flat_at - limit // 2)
    end = min(len(sentence), start + limit)
    start = max(0, end - limit)
    if start > 0:
        space = sentence.find(" ", start)
        start = space + 1 if 0 <= space < flat_at else start
    if end < len(sentence):
        space = sentence.rfind(" ", flat_at, end)
        end = space if space > flat_at else end
    head = "…" if start > 0 else ""
    tail = "…" if end < len(sentence) else ""
    return head + sentence[start:end].strip() + tail
