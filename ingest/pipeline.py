"""One ingestion run: discover files, parse, skip what is unchanged, embed, write, prune.

Each document is written in its own transaction (see writer.py), so an interrupted run leaves
every document either at its old version or at its new one; running again completes the rest.
Per-file problems are collected in the report and never stop the batch.
"""

from __future__ import annotations

import re
import tempfile
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Protocol

import msgspec

from ingest.convert import SUPPORTED_EXTENSIONS, converter_for
from ingest.convert.base import ConversionError, ConvertLimits
from ingest.convert.text import MarkdownConverter
from ingest.embedding_models import other_vector_properties, record_first_model
from ingest.embeddings import Embedder, EmbeddingError
from ingest.origin import origin_of
from ingest.problems import Problem
from ingest.scope_index import ScopeIndexState, refresh_scope_vector_index
from ingest.units import DocumentUnit, KnowledgePointIndex, ParsedSource, build_unit, read_source
from ingest.versions import ACTIVE
from ingest.writer import Derived, derive, prune_knowledge_points, withdraw_document, write_unit
from service.db.graph import Graph, WriteCounters
from service.embedding_space import DEFAULT_SPACE, bind_embedder
from service.errors import KgsError
from service.settings import IngestSettings

__all__ = [
    "IngestOptions",
    "IngestReport",
    "InvalidScope",
    "Progress",
    "discover",
    "ingest",
    "ingest_file_text",
]

SCOPE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$")
EMBEDDING_OK = "ok"
EMBEDDING_DISABLED = "disabled"
_EMBED_CHUNK_PARAGRAPHS = 512  # paragraphs embedded together before their documents are written


class InvalidScope(KgsError, ValueError):
    """A scope name that is not letters, digits, '.', '_' and '-' (at most 64)."""

    http_status = 400


class IngestOptions(msgspec.Struct, frozen=True, kw_only=True):
    scope: str | None = None  # None: each top-level folder of the path is a scope
    prune: bool = False  # withdraw documents of the ingested scopes whose file is gone
    dry_run: bool = False
    # The head version every document must still be at (an API upload's If-Match): another
    # head fails the run with HeadChanged, and that document is left as it was.
    if_match: int | None = None


class IngestReport(msgspec.Struct, kw_only=True):
    scopes: list[str] = msgspec.field(default_factory=list)
    added: list[str] = msgspec.field(default_factory=list)
    updated: list[str] = msgspec.field(default_factory=list)
    unchanged: list[str] = msgspec.field(default_factory=list)
    restored: list[str] = msgspec.field(default_factory=list)  # withdrawn, now active again
    versions: dict[str, int] = msgspec.field(default_factory=dict)  # head version by path
    removed: list[str] = msgspec.field(default_factory=list)
    problems: list[Problem] = msgspec.field(default_factory=list)
    # What was read: documents per format ("text/markdown": 12, "application/pdf": 3) and the
    # pages of the paged ones (PDF).
    formats: dict[str, int] = msgspec.field(default_factory=dict)
    pages: int = 0
    paragraphs_written: int = 0
    embeddings_computed: int = 0
    embedding_failure: str | None = None
    knowledge_points_pruned: int = 0
    vector_indexes: dict[str, ScopeIndexState] = msgspec.field(default_factory=dict)  # by scope
    # Seconds spent creating or completing each scope's own indexes (labelling included).
    scope_index_s: dict[str, float] = msgspec.field(default_factory=dict)
    writes: WriteCounters = msgspec.field(default_factory=WriteCounters)
    elapsed_s: float = 0.0

    @property
    def failed_files(self) -> list[str]:
        return sorted({p.path for p in self.problems if p.severity == "error"})


class Progress(Protocol):
    def files(self, count: int) -> None: ...
    def paragraphs(self, count: int) -> None: ...
    def embeddings(self, count: int) -> None: ...


class _Silent:
    def files(self, count: int) -> None: ...
    def paragraphs(self, count: int) -> None: ...
    def embeddings(self, count: int) -> None: ...


class SourceFile(msgspec.Struct, frozen=True):
    scope: str
    path: str  # relative to the knowledge base root
    file: Path


def discover(root: Path, scope: str | None) -> tuple[list[SourceFile], list[Problem]]:
    """Documents under `root` (every format of ingest/convert) with their scope and path.

    With `scope`, everything under `root` is that scope. Without it, each top-level folder is a
    scope; a folder whose documents all lie directly in it (no subfolder holds one) is itself
    one scope, named after it. Otherwise documents directly in `root` belong to no scope: the
    knowledge base's own README is left alone, any other one is reported. Hidden entries are
    skipped; files of other formats are reported as skipped (a warning), never silently.
    """
    problems: list[Problem] = []
    if not root.exists():
        raise FileNotFoundError(f"no such file or directory: {root}")
    if scope is not None and not SCOPE_NAME.match(scope):
        raise InvalidScope(f"invalid scope name {scope!r} (letters, digits, '.', '_', '-'; max 64)")
    if root.is_file():
        name = scope or root.resolve().parent.name
        return [SourceFile(name, f"{name}/{root.name}", root)], problems
    folders = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    loose = [f for f in sorted(root.iterdir()) if f.is_file() and not f.name.startswith(".")]
    if scope is None and loose and not any(_documents(f, []) for f in folders):
        scope = root.resolve().name
        if not SCOPE_NAME.match(scope):
            raise InvalidScope(f"folder name {scope!r} is not a valid scope name: pass --scope")
    if scope is not None:
        return [SourceFile(scope, f"{scope}/{rel}", f)
                for rel, f in _documents(root, problems)], problems  # fmt: skip
    for file in loose:
        if file.name.lower() != _ROOT_README and file.suffix.lower() in SUPPORTED_EXTENSIONS:
            problems.append(Problem(file.name, 0, "warning", _NO_SCOPE))
    found: list[SourceFile] = []
    for folder in folders:
        if not SCOPE_NAME.match(folder.name):
            problems.append(
                Problem(folder.name, 0, "error", "folder name is not a valid scope name")
            )
            continue
        found.extend(SourceFile(folder.name, f"{folder.name}/{rel}", f)
                     for rel, f in _documents(folder, problems))  # fmt: skip
    return found, problems


_ROOT_README = "readme.md"
_NO_SCOPE = (
    "skipped: a document directly in the knowledge base's root belongs to no scope "
    "(move it into a scope's folder, or pass --scope)"
)


def _documents(folder: Path, problems: list[Problem]) -> list[tuple[str, Path]]:
    """The documents under `folder` by path relative to it; other files become warnings."""
    found: list[tuple[str, Path]] = []
    for file in sorted(folder.rglob("*")):
        rel = file.relative_to(folder)
        if any(part.startswith(".") for part in rel.parts) or not file.is_file():
            continue
        if file.suffix.lower() in SUPPORTED_EXTENSIONS:
            found.append((rel.as_posix(), file))
        else:
            problems.append(Problem(f"{folder.name}/{rel.as_posix()}", 0, "warning",
                                    f"skipped: {_format_name(file)} is not a supported format "
                                    f"({', '.join(SUPPORTED_EXTENSIONS)})"))  # fmt: skip
    return found


def _format_name(file: Path) -> str:
    return f"'{file.suffix}'" if file.suffix else "a file without an extension"


def ingest(
    graph: Graph,
    embedder: Embedder | None,
    root: Path,
    options: IngestOptions,
    settings: IngestSettings,
    progress: Progress | None = None,
) -> IngestReport:
    started = time.perf_counter()
    progress = progress or _Silent()
    report = IngestReport()
    files, problems = discover(root, options.scope)
    report.problems.extend(problems)
    by_scope: dict[str, list[SourceFile]] = {}
    for source in files:
        by_scope.setdefault(source.scope, []).append(source)
    state = _EmbeddingState(graph, embedder)
    for scope, scope_files in by_scope.items():
        report.scopes.append(scope)
        _ingest_scope(graph, state, scope, scope_files, options, settings, progress, report,
                      whole_scope=root.is_dir())  # fmt: skip
    report.embedding_failure = state.failure
    report.elapsed_s = round(time.perf_counter() - started, 3)
    return report


def ingest_file_text(
    graph: Graph,
    embedder: Embedder | None,
    scope: str,
    relative: str,
    raw: bytes,
    settings: IngestSettings,
    *,
    if_match: int | None = None,
) -> IngestReport:
    """Ingest one document's text at its path in the scope (an upload, a restore): the same
    run as `kgs ingest` over a folder holding just this file, so nothing differs."""
    with tempfile.TemporaryDirectory(prefix="kgs-document-") as folder:
        target = Path(folder, relative)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(raw)  # bytes as sent: offsets index exactly this text
        options = IngestOptions(scope=scope, if_match=if_match)
        return ingest(graph, embedder, Path(folder), options, settings)


class _EmbeddingState:
    """The active model's embedder, until it fails once; afterwards the run continues
    lexical-only. A graph without a recorded model records the embedder's as its first."""

    def __init__(self, graph: Graph, embedder: Embedder | None) -> None:
        self.failure: str | None = None
        self.graph, self.binding = graph, bind_embedder(graph, embedder)
        self.space = self.binding.space or DEFAULT_SPACE
        self.embedder: Embedder | None = self.binding.embedder
        if embedder is not None and self.embedder is None:
            self.failure = self.binding.detail or self.binding.status
        self.others = other_vector_properties(graph, self.space) if self.embedder else ()

    @property
    def status_if_missing(self) -> str:
        if self.embedder is None:
            return EMBEDDING_DISABLED
        return f"failed: {self.failure}" if self.failure else EMBEDDING_OK

    def embed(self, texts: Sequence[str]) -> list[list[float]] | None:
        if self.embedder is None or self.failure is not None:
            return None
        try:
            vectors = self.embedder.embed(texts)
        except EmbeddingError as error:
            self.failure = str(error)
            return None
        if not self.binding.recorded:  # the graph's first model, now that it works
            record_first_model(self.graph, self.binding)
            self.binding = msgspec.structs.replace(self.binding, recorded=True)
        return vectors


def _ingest_scope(
    graph: Graph,
    embedding: _EmbeddingState,
    scope: str,
    files: list[SourceFile],
    options: IngestOptions,
    settings: IngestSettings,
    progress: Progress,
    report: IngestReport,
    *,
    whole_scope: bool,
) -> None:
    parsed: list[ParsedSource] = []
    for source in files:
        result = _read(source, settings)
        progress.files(1)
        if isinstance(result, Problem):
            report.problems.append(result)
            continue
        parsed.append(result)
        media_type = result.origin.media_type if result.origin else "text/markdown"
        report.formats[media_type] = report.formats.get(media_type, 0) + 1
        report.pages += (result.origin.pages or 0) if result.origin else 0
    index = _knowledge_point_index(graph, scope, parsed, report)
    model = embedding.space.name if embedding.embedder else "none"
    units = [build_unit(p, index, model=model) for p in parsed]
    pruning = options.prune and whole_scope
    states = (graph.read("ingest/document_states", scope=scope) if pruning else
              graph.read("ingest/document_states_of_paths", scope=scope,
                         paths=[u.path for u in units]))  # fmt: skip
    existing = {row["path"]: row for row in states}
    wanted_status = embedding.status_if_missing
    changed: list[DocumentUnit] = []
    for unit in units:
        report.problems.extend(unit.problems)
        before = existing.get(unit.path)
        if (
            before
            and before["unitHash"] == unit.unit_hash
            and before["embeddingStatus"] == wanted_status
            and before["status"] == ACTIVE
            and before["hasVersion"]
            and options.if_match in (None, before["version"])
        ):
            report.unchanged.append(unit.path)
            report.versions[unit.path] = int(before["version"])
        else:
            changed.append(unit)
    present = {u.path for u in units}
    gone = sorted(p for p, row in existing.items() if row["status"] == ACTIVE
                  and p not in present) if pruning else []  # fmt: skip
    if options.dry_run:
        for unit in changed:  # what the write would decide, as far as the read can tell
            (report.updated if unit.path in existing else report.added).append(unit.path)
        report.removed.extend(gone)
        return
    if changed:  # documents written before they recorded their relations' sources
        graph.write("ingest/record_relation_sources", scope=scope)
    # A worker embeds and analyses chunk N+1 while chunk N is written: torch and the Bolt round
    # trips release the GIL, so graph writes hide behind the model and the text analysis
    # instead of adding to them.
    chunks = list(_chunks(changed, _EMBED_CHUNK_PARAGRAPHS))
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="embed") as pool:
        pending = pool.submit(_prepare, graph, embedding, chunks[0]) if chunks else None
        for number, chunk in enumerate(chunks):
            assert pending is not None
            vectors, status, derived = pending.result()
            if number + 1 < len(chunks):
                pending = pool.submit(_prepare, graph, embedding, chunks[number + 1])
            report.embeddings_computed += len(vectors)
            progress.embeddings(len(vectors))
            for unit in chunk:
                written = write_unit(
                    graph, unit, vectors, status, derived, if_match=options.if_match,
                    vector_property=embedding.space.vector_property,
                    other_vector_properties=embedding.others,
                )  # fmt: skip
                _report_write(report, unit.path, written.kind)
                report.versions[unit.path] = written.version
                report.writes = report.writes + written.counters
                if written.kind not in ("unchanged", "adopted"):
                    report.paragraphs_written += len(unit.paragraphs)
                progress.paragraphs(len(unit.paragraphs))
    for path in gone:
        withdraw_document(graph, str(existing[path]["id"]))
        report.removed.append(path)
    report.knowledge_points_pruned += prune_knowledge_points(graph, scope)
    # Also when nothing changed: it writes only what differs, and gives a scope written before
    # the degree histogram existed its histogram.
    graph.write("ingest/refresh_degrees", scope=scope)
    started = time.perf_counter()
    report.vector_indexes[scope] = refresh_scope_vector_index(
        graph, scope, settings, embedding.space
    )
    report.scope_index_s[scope] = round(time.perf_counter() - started, 2)


def _report_write(report: IngestReport, path: str, kind: str) -> None:
    """What the write transaction decided, which can differ from the earlier read (a
    concurrent writer committed the same content first)."""
    lists = {"added": report.added, "updated": report.updated, "rewritten": report.updated,
             "adopted": report.unchanged,
             "restored": report.restored, "unchanged": report.unchanged}  # fmt: skip
    lists[kind].append(path)


def _read(source: SourceFile, settings: IngestSettings) -> ParsedSource | Problem:
    size = source.file.stat().st_size
    if size > settings.max_file_bytes:
        return Problem(
            source.path,
            0,
            "error",
            f"{size} bytes is over the {settings.max_file_bytes}-byte limit",
        )
    raw = source.file.read_bytes()
    if source.file.suffix.lower() not in MarkdownConverter.extensions:
        return _read_converted(source, raw, settings)
    if b"\x00" in raw:
        return Problem(source.path, 0, "error", "binary content (NUL bytes), not Markdown")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        return Problem(source.path, line, "error", f"not valid UTF-8 at byte {error.start}")
    if len(text) > settings.max_source_chars:
        return Problem(source.path, 0, "error", f"{len(text)} characters is over the "
                       f"{settings.max_source_chars}-character limit")  # fmt: skip
    return read_source(
        source.scope, source.path, text, max_block_chars=settings.max_paragraph_chars,
        passage_words=settings.passage_words,
    )  # fmt: skip


def _read_converted(source: SourceFile, raw: bytes, settings: IngestSettings
                    ) -> ParsedSource | Problem:  # fmt: skip
    """A PDF, HTML, Word or text file through its converter (ingest/convert), then the same
    reading as Markdown; the original bytes go with it to the version."""
    try:
        converted = converter_for(source.file.name, raw[:SNIFF_BYTES]).convert(
            raw, source.file.name, convert_limits(settings)
        )
    except ConversionError as error:
        return Problem(source.path, 0, "error", error.reason)
    parsed = read_source(
        source.scope, source.path, converted.text, max_block_chars=settings.max_paragraph_chars,
        passage_words=settings.passage_words,
    )  # fmt: skip
    if isinstance(parsed, Problem):
        return parsed
    warnings = tuple(Problem(source.path, 0, "warning", w) for w in converted.warnings)
    return msgspec.structs.replace(
        parsed, origin=origin_of(converted, raw), problems=parsed.problems + warnings
    )


SNIFF_BYTES = 4096


def convert_limits(settings: IngestSettings) -> ConvertLimits:
    return ConvertLimits(
        max_pages=settings.max_pdf_pages, max_chars=settings.max_source_chars,
        max_unzipped_bytes=settings.max_unzipped_bytes, max_zip_ratio=settings.max_zip_ratio,
        max_html_depth=settings.max_html_depth, min_text_share=settings.html_min_text_share,
    )  # fmt: skip


def _knowledge_point_index(
    graph: Graph, scope: str, parsed: list[ParsedSource], report: IngestReport
) -> KnowledgePointIndex:
    """Knowledge points of this batch first, then those already in the graph for the scope."""
    entries: list[tuple[str, str, Sequence[str]]] = []
    paths: dict[str, str] = {}
    owner: dict[str, str] = {}
    for source in parsed:
        for kp in source.knowledge_points:
            if kp.link == "DESCRIBED_IN" and kp.id in owner:
                report.problems.append(
                    Problem(source.path, 0, "warning",
                            f"knowledge point id {kp.id!r} is also described by {owner[kp.id]}")
                )  # fmt: skip
            owner.setdefault(kp.id, source.path)
            entries.append((kp.id, kp.title, kp.aliases))
        paths[source.path] = source.primary_id
    for row in graph.read("ingest/scope_knowledge_points", scope=scope):
        if row["id"] is None:  # purged by a concurrent delete after the match (read committed)
            continue
        entries.append((row["id"], row["title"] or row["id"], row["aliases"] or []))
        for path in row["paths"]:
            paths.setdefault(path, row["id"])
    return KnowledgePointIndex(entries, paths)


def _prepare(
    graph: Graph, embedding: _EmbeddingState, chunk: list[DocumentUnit]
) -> tuple[dict[str, list[float]], str, Derived]:
    """What writing the chunk needs besides its units: vectors, their status, and what is
    derived from the text (analyses, near keys, facts)."""
    vectors, status = _vectors(graph, embedding, chunk)
    return vectors, status, derive(chunk)


def _vectors(
    graph: Graph, embedding: _EmbeddingState, chunk: list[DocumentUnit]
) -> tuple[dict[str, list[float]], str]:
    """Vectors for the chunk's paragraphs that lack one for their current text and model."""
    if embedding.embedder is None:
        return {}, EMBEDDING_DISABLED
    have = {
        row["id"]: row["embeddingHash"]
        for row in graph.read(
            "ingest/paragraph_embedding_hashes",
            documentIds=[u.id for u in chunk],
            property=embedding.space.vector_property,
        )
    }
    todo = [p for u in chunk for p in u.paragraphs if have.get(p["id"]) != p["embeddingHash"]]
    vectors = embedding.embed([p["embeddingText"] for p in todo]) if todo else []
    if vectors is None:
        return {}, embedding.status_if_missing
    return {p["id"]: v for p, v in zip(todo, vectors, strict=True)}, EMBEDDING_OK


def _chunks(units: list[DocumentUnit], paragraphs: int) -> Iterator[list[DocumentUnit]]:
    chunk: list[DocumentUnit] = []
    size = 0
    for unit in units:
        chunk.append(unit)
        size += len(unit.paragraphs)
        if size >= paragraphs:
            yield chunk
            chunk, size = [], 0
    if chunk:
        yield chunk
