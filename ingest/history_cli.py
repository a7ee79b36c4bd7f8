"""`kgs document ...`, `kgs changes` and `kgs retention apply`: a document's versions and
lifecycle, a scope's change feed, and version retention from the command line (the same
operations as the REST API, docs/versions.md)."""

from __future__ import annotations

import argparse
import json

from ingest.embeddings import ModelRoster
from ingest.lifecycle import purge, restore, withdraw
from ingest.retention import apply_retention, check_feed_cursor
from ingest.writer import DocumentGone
from service.db import graph_session
from service.db.object_model import bind_object_model
from service.graph_model import ChangeEvent, Document, DocumentVersion
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
    """An administrative read through the object model (service/graph_model.py)."""
    with graph_session(settings, ensure_schema=False) as graph:
        bind_object_model(graph)
        document = Document.nodes.get_or_none(uid=args.id)
        if document is None:
            raise DocumentGone(f"document {args.id} not found")
        print(f"{document.path}: {document.status or 'active'}, head version {document.version}")
        for version in DocumentVersion.nodes.filter(document_id=args.id).order_by("-version"):
            mark = "*" if version.version == document.version else " "
            print(f"{mark} v{version.version}  {version.created_at}  "
                  f"{version.paragraphs} paragraphs  {version.content_hash[:12]}")  # fmt: skip
    return 0


def _withdraw(args: argparse.Namespace, settings: Settings) -> int:
    with graph_session(settings) as graph:
        version = withdraw(graph, args.id, if_match=args.if_match)
    print(f"withdrawn at version {version}")
    return 0


def _restore(args: argparse.Namespace, settings: Settings) -> int:
    embedder = ModelRoster(settings.embedding) if settings.embedding.enabled else None
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
    """An administrative read through the object model (service/graph_model.py)."""
    limit = min(args.limit, settings.versions.max_feed_page)
    with graph_session(settings, ensure_schema=False) as graph:
        bind_object_model(graph)
        query = ChangeEvent.nodes.filter(scope=args.scope, seq__gt=args.after).order_by("seq")
        events = list(query[:limit])
        # After the events, as GET /v1/changes reads it (service/api/changes.py).
        deleted_through = check_feed_cursor(graph, args.scope, args.after)
        for event in events:
            if event.seq <= deleted_through:
                continue
            row = {"seq": event.seq, "kind": event.kind, "documentId": event.document_id,
                   "path": event.path, "oldVersion": event.old_version,
                   "newVersion": event.new_version, "at": event.at}  # fmt: skip
            if event.model:
                row |= {"model": event.model, "previousModel": event.previous_model}
            if event.ticket_id:
                row |= {"ticketId": event.ticket_id}
            if event.subjects:
                row |= {"subjects": event.subjects}
            print(json.dumps(row, ensure_ascii=False))
    return 0


def _retention(args: argparse.Namespace, settings: Settings) -> int:
    with graph_session(settings) as graph:
        report = apply_retention(graph, settings.versions, scope=args.scope,
                                 dry_run=args.dry_run)  # fmt: skip
    kept = ", ".join(f"{why} {count}" for why, count in report.kept.items())
    verb = "would release" if report.dry_run else "released"
    feed = "would delete" if report.dry_run else "deleted"
    print(
        f"versions kept: {kept}; {verb} {report.releasable if report.dry_run else report.released}"
        f"; change-feed events {feed} {report.feed.deleted} (of {report.feed.feeds} scopes)"
    )
    return 0
