"""Server-sent events as a test reads them: (event, decoded JSON data) pairs, in order."""

from __future__ import annotations

import json
from typing import Any


def sse_events(text: str) -> list[tuple[str, Any]]:
    """`text`: the stream's lines joined with newlines (events are separated by a blank line)."""
    events = []
    for block in text.split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if "event" in fields:
            events.append((fields["event"], json.loads(fields["data"])))
    return events
