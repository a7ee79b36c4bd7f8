"""One escalation confirmation in a process of its own (tests/faults/test_kill_during_confirm.py):
`python -m tests.faults.confirm_child DRAFT_ID KEY_NAME CONTENT_FILE` on the server that the
environment names. It prints `ready` once connected, then confirms and prints the outcome."""

from __future__ import annotations

import sys
from pathlib import Path

import msgspec

from service.db import open_graph
from service.escalations import confirm_draft
from service.settings import Settings


def main(draft_id: str, key_name: str, content_file: str) -> None:
    content = msgspec.json.decode(Path(content_file).read_bytes())
    graph, _, close = open_graph(Settings.from_env(), ensure_schema=False)
    try:
        graph.read("escalations/draft", draftId=draft_id, keyName=key_name)  # connected
        print("ready", flush=True)
        outcome = confirm_draft(graph, draft_id, key_name, content)
        print(msgspec.json.encode(outcome).decode(), flush=True)
    finally:
        close()


if __name__ == "__main__":
    main(*sys.argv[1:4])
