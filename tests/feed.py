"""What a client that follows a scope's change feed knows (docs/versions.md#the-change-feed)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any


def replayed(events: Iterable[Mapping[str, Any]]) -> dict[str, tuple[int, str]]:
    """Document id -> (head version, status), from the events in feed order: added, updated and
    restored make a document active at newVersion, withdrawn withdraws it, purged removes it;
    modelActivated, gapAnswerable and conflictResolved change no document."""
    state: dict[str, tuple[int, str]] = {}
    for event in events:
        if event["kind"] in ("modelActivated", "gapAnswerable", "conflictResolved"):
            continue
        if event["kind"] == "purged":
            state.pop(event["documentId"], None)
        elif event["kind"] == "withdrawn":
            state[event["documentId"]] = (event["oldVersion"], "withdrawn")
        else:
            state[event["documentId"]] = (event["newVersion"], "active")
    return state
