"""`kgs embeddings ...`: the graph's embedding models, and switching between them
(ingest/embedding_models.py, docs/embeddings.md)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable

import msgspec

from ingest.embedding_models import activate, retire, rollback, switch
from ingest.embeddings import ModelRoster
from service.db import graph_session
from service.db.object_model import bind_object_model
from service.graph_model import EmbeddingModel
from service.settings import Settings

__all__ = ["add_commands", "run_switch"]

Command = Callable[[argparse.Namespace, Settings], int]


def add_commands(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], switch_run: Command | None = None
) -> None:
    """`switch_run`: the command that runs `switch` (the CLI's gated one, which asks questions
    through the answer path above this layer); `run_switch` by default."""
    embeddings = sub.add_parser("embeddings", help="the embedding models: list, switch, rollback")
    action = embeddings.add_subparsers(dest="action", required=True)
    action.add_parser("list", help="the recorded models, the active one first").set_defaults(
        run=_list
    )
    change = action.add_parser(
        "switch", help="embed every paragraph with another model, audit it and activate it"
    )
    change.add_argument("model", help="MODEL or MODEL@DIMENSIONS (fewer dimensions truncate)")
    change.add_argument("--no-activate", action="store_true",
                        help="build and audit only; `kgs embeddings activate` later")  # fmt: skip
    change.add_argument("--gate", help="TOML quality gates the new model must meet before it is "
                        "activated (with --questions; docs/evaluation.md)")  # fmt: skip
    change.add_argument("--questions", help="the gold question file (JSONL) the gates are "
                        "measured on, asked of the new model")  # fmt: skip
    change.add_argument("--top-k", type=int, default=10, help="passages per question (10)")
    change.add_argument("--force", action="store_true",
                        help="activate even when a gate is missed")  # fmt: skip
    change.set_defaults(run=switch_run or run_switch)
    on = action.add_parser("activate", help="activate a built model (name@dimensions)")
    on.add_argument("name")
    on.set_defaults(run=_activate)
    action.add_parser("rollback", help="activate the model active before").set_defaults(
        run=_rollback
    )
    off = action.add_parser("retire", help="drop a model that is not active, and its vectors")
    off.add_argument("name")
    off.set_defaults(run=_retire)


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _list(args: argparse.Namespace, settings: Settings) -> int:
    """An administrative read through the object model (service/graph_model.py)."""
    with graph_session(settings, ensure_schema=False) as graph:
        bind_object_model(graph)
        for model in EmbeddingModel.nodes.order_by("name"):
            print(f"{model.status:9} {model.name}  property {model.property}  "
                  f"index {model.index}  created {model.created_at}")  # fmt: skip
    return 0


def run_switch(args: argparse.Namespace, settings: Settings) -> int:
    """The switch without gates."""
    roster = ModelRoster(settings.embedding)
    with graph_session(settings) as graph:
        report = switch(graph, roster, args.model, settings.embedding,
                        activate_now=not args.no_activate, progress=_say)  # fmt: skip
    print(json.dumps(msgspec.to_builtins(report) | {
        "coverage": round(report.audit.coverage, 4)}, indent=2))  # fmt: skip
    return 0


def _activate(args: argparse.Namespace, settings: Settings) -> int:
    with graph_session(settings) as graph:
        previous = activate(graph, ModelRoster(settings.embedding), args.name, settings.embedding)
    print(f"active: {args.name} (before: {previous})")
    return 0


def _rollback(args: argparse.Namespace, settings: Settings) -> int:
    with graph_session(settings) as graph:
        name, previous = rollback(graph, ModelRoster(settings.embedding), settings.embedding)
    print(f"active: {name} (before: {previous})")
    return 0


def _retire(args: argparse.Namespace, settings: Settings) -> int:
    with graph_session(settings) as graph:
        cleared = retire(graph, args.name, settings.embedding)
    print(f"retired {args.name}: {cleared} vectors removed")
    return 0
