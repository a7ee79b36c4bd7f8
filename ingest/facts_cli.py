"""`kgs facts rebuild --scope S`: Fact nodes for a scope written before facts were nodes
(ingest/fact_rebuild.py, docs/facts.md)."""

from __future__ import annotations

import argparse
import sys

from ingest.fact_rebuild import REBUILD_BATCH, rebuild_facts
from service.db import graph_session
from service.settings import Settings

__all__ = ["add_commands"]


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    facts = sub.add_parser("facts", help="the comparable facts kept as graph nodes")
    action = facts.add_subparsers(dest="action", required=True)
    rebuild = action.add_parser(
        "rebuild", help="write the facts of documents that lack them (resumable)"
    )
    rebuild.add_argument("--scope", required=True)
    rebuild.add_argument("--batch", type=int, default=REBUILD_BATCH,
                         help="documents read per statement")  # fmt: skip
    rebuild.set_defaults(run=_rebuild)


def _rebuild(args: argparse.Namespace, settings: Settings) -> int:
    if args.batch < 1:
        print("kgs facts rebuild: --batch must be at least 1", file=sys.stderr)
        return 2
    with graph_session(settings) as graph:
        report = rebuild_facts(graph, args.scope, batch=args.batch,
                               on_document=lambda path, n: print(f"{path}: {n} facts"))  # fmt: skip
    print(f"{report.documents} documents given {report.facts} facts"
          + (f"; {report.skipped} changed meanwhile (their write made them)"
             if report.skipped else ""))  # fmt: skip
    return 0
