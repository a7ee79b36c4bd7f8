"""`kgs ingest PATH [--scope S] [--prune] [--dry-run]`: progress bars and a summary."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ingest.embeddings import ModelRoster
from ingest.pipeline import IngestOptions, IngestReport, InvalidScope, ingest
from service.db import graph_session
from service.settings import Settings

__all__ = ["run_ingest"]

_MAX_PROBLEMS_SHOWN = 50
_FORMAT_NAMES = {
    "text/markdown": "Markdown", "text/plain": "text", "text/html": "HTML",
    "application/pdf": "PDF",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "Word",
}  # fmt: skip


class _Bars:
    """Three tqdm bars on stderr: files read, paragraphs written, embeddings computed."""

    def __init__(self, enabled: bool) -> None:
        from tqdm import tqdm

        options = {"disable": not enabled, "file": sys.stderr, "leave": True}
        self._files = tqdm(desc="files", unit="file", position=0, **options)
        self._paragraphs = tqdm(desc="paragraphs", unit="par", position=1, **options)
        self._embeddings = tqdm(desc="embeddings", unit="vec", position=2, **options)

    def files(self, count: int) -> None:
        self._files.update(count)

    def paragraphs(self, count: int) -> None:
        self._paragraphs.update(count)

    def embeddings(self, count: int) -> None:
        self._embeddings.update(count)

    def close(self) -> None:
        for bar in (self._files, self._paragraphs, self._embeddings):
            bar.close()


def run_ingest(args: argparse.Namespace, settings: Settings) -> int:
    options = IngestOptions(scope=args.scope, prune=args.prune, dry_run=args.dry_run)
    embedder = ModelRoster(settings.embedding) if settings.embedding.enabled else None
    bars = _Bars(enabled=not args.no_progress and sys.stderr.isatty())
    try:
        with graph_session(settings) as graph:
            report = ingest(graph, embedder, Path(args.path), options, settings.ingest, bars)
    except InvalidScope as error:
        print(f"kgs: {error}", file=sys.stderr)
        return 2
    finally:
        bars.close()
    print(summary(report, dry_run=args.dry_run))
    return 0


def summary(report: IngestReport, *, dry_run: bool) -> str:
    documents = "documents (dry run, nothing written)" if dry_run else "documents"
    read = ", ".join(f"{n} {_FORMAT_NAMES.get(t, t)}" for t, n in sorted(report.formats.items()))
    lines = [
        f"scopes: {', '.join(report.scopes) or '-'}",
        f"read: {read or 'no documents'}" + (f" ({report.pages} pages)" if report.pages else ""),
        f"{documents}: added {len(report.added)}, updated {len(report.updated)}, "
        f"unchanged {len(report.unchanged)}, restored {len(report.restored)}, "
        f"withdrawn {len(report.removed)}",
        f"paragraphs written {report.paragraphs_written}, embeddings computed "
        f"{report.embeddings_computed}, graph writes {report.writes.total}, "
        f"knowledge points pruned {report.knowledge_points_pruned}, {report.elapsed_s:.1f} s",
    ]
    if report.embedding_failure:
        lines.append(f"embeddings failed, ingested lexical-only: {report.embedding_failure}")
    errors = [p for p in report.problems if p.severity == "error"]
    warnings = [p for p in report.problems if p.severity == "warning"]
    skipped = sum(1 for p in warnings if p.message.startswith("skipped"))
    lines.append(f"problems: {len(errors)} files not ingested, {skipped} files skipped, "
                 f"{len(warnings) - skipped} other warnings")  # fmt: skip
    lines.extend(f"  {p}" for p in (errors + warnings)[:_MAX_PROBLEMS_SHOWN])
    if len(report.problems) > _MAX_PROBLEMS_SHOWN:
        lines.append(f"  ... and {len(report.problems) - _MAX_PROBLEMS_SHOWN} more")
    return "\n".join(lines)
