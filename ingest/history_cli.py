"""`kgs document ...`, `kgs changes` and `kgs retention apply`: a document's versions and
lifecycle, a scope's change feed, and version retention from the command line (the same
operations as the REST API, docs/versions.md)."""

from __future__ import annotations

import argparse
import json

from ingest.embeddings import SentenceTransformerEmbedder
from ingest.lifecycle import document_head, purge, restore, withdraw
from ingest.retention import apply_retention
from service.db import graph_session
from service.settings import Settings

__all__ = ["add_commands"]


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    document = sub.add_parser("document", help="a document's versions, withdraw, restore, purge")
    action = document.add_subparsers(dest="action", required=True)
    versions = action.add_parser("versions", help="list a document's retained versions")
    versions.add_argument("id", help="the document id (d_...)")
    versions.set_defaults(run=_versions)
    for name, helptext, run in (
        ("withdraw", "take a document out of every answer (restorable)", _withdraw),
        ("restore", "bring a withdrawn document back", _restore),
        ("purge", "remove a document and every version for good", _purge),
    ):
        command = action.add_parser(name, help=helptext)
        command.add_argument("id", help="the document id (d_...)")
        command.add_argument("--if-match", type=int, metavar="VERSION",
                             help="only if the head is still this version")  # fmt: skip
        command.set_defaults(run=run)

    changes = sub.add_parser("changes", help="a scope's publication events, as JSON lines")
    changes.add_argument("scope")
    changes.add_argument("--after", type=int, default=0, help="the last event number seen")
    changes.add_argument("--limit", type=int, default=1000)
    changes.set_defaults(run=_changes)

    retention = sub.add_parser("retention", help="release old document versions")
    retention.add_argument("action", choices=["apply"])
    retention.add_argument("--dry-run", action="store_true", help="report only, delete nothing")
    retention.add_argument("--scope", help="only this scope's documents")
    retention.set_defaults(run=_retention)


def _versions(args: argparse.Namespace, settings: Settings) -> int:
    with graph_session(settings, ensure_schema=False) as graph:
        head = document_head(graph, args.id)
        print(f"{head['path']}: {head['status']}, head version {head['version']}")
        for row in graph.read("api/document_versions", id=args.id):
            mark = "*" if row["head"] else " "
            print(f"{mark} v{row['version']}  {row['createdAt']}  {row['paragraphs']} paragraphs"
                  f"  cited by {row['citedBy']} answers  {row['contentHash'][:12]}")  # fmt: skip
    return 0


def _withdraw(args: argparse.Namespace, settings: Settings) -> int:
    with graph_session(settings) as graph:
        version = withdraw(graph, args.id, if_match=args.if_match)
    print(f"withdrawn at version {version}")
    return 0


def _restore(args: argparse.Namespace, settings: Settings) -> int:
    embedder = (
        SentenceTransformerEmbedder(settings.embedding) if settings.embedding.enabled else None
    )
    with graph_session(settings) as graph:
        report = restore(graph, embedder, settings.ingest, args.id, if_match=args.if_match)
    version = next(iter(report.versions.values()), 0)
    print(f"restored at version {version}" if report.restored else
          f"written as version {version} (the parser changed since)")  # fmt: skip
    return 0


def _purge(args: argparse.Namespace, settings: Settings) -> int:
    with graph_session(settings) as graph:
        purge(graph, args.id, if_match=args.if_match)
    print("purged")
    return 0


def _changes(args: argparse.Namespace, settings: Settings) -> int:
    with graph_session(settings, ensure_schema=False) as graph:
        rows = graph.read("api/changes_page", scope=args.scope, after=args.after,
                          limit=min(args.limit, settings.versions.max_feed_page))  # fmt: skip
    for row in rows:
        print(json.dumps(row, ensure_ascii=False))
    return 0


def _retention(args: argparse.Namespace, settings: Settings) -> int:
    with graph_session(settings) as graph:
        report = apply_retention(graph, settings.versions, scope=args.scope,
                                 dry_run=args.dry_run)  # fmt: skip
    kept = ", ".join(f"{why} {count}" for why, count in report.kept.items())
    verb = "would release" if report.dry_run else "released"
    print(
        f"versions kept: {kept}; {verb} {report.releasable if report.dry_run else report.released}"
    )
    return 0
