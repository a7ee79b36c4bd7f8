"""Documents: list (cursor pages), read (structure with offsets), upload Markdown, delete.

An upload runs the CLI's own ingestion (`ingest.pipeline.ingest`) on the uploaded file placed at
its path inside the scope, so parsing, identifiers, skip-if-unchanged and the end-of-scope steps
are the same; re-uploading unchanged content changes nothing and answers `unchanged`.
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import anyio
import msgspec
from litestar import Controller, Response, delete, get, post
from litestar.datastructures import UploadFile
from litestar.enums import RequestEncodingType
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import Body, Parameter

from ingest.pipeline import IngestOptions, IngestReport, ingest
from ingest.units import document_id
from ingest.writer import delete_document, prune_knowledge_points
from service.api.auth import Grant, requires_write
from service.api.cursors import decode_cursor, encode_cursor
from service.api.errors import bad_request, not_found, problem, v1_problems
from service.api.scopes import SCOPE_PATTERN, readable_scope
from service.api.state import AppResources
from service.db.graph import Graph

__all__ = ["DocumentController"]

MARKDOWN_SUFFIX = ".md"  # what ingestion reads (discover: *.md)
MAX_PATH_CHARS = 255
MAX_PATH_DEPTH = 8
# Media types a Markdown file arrives with from curl, browsers and HTTP libraries.
_MARKDOWN_TYPES = frozenset(
    {"text/markdown", "text/x-markdown", "text/plain", "application/octet-stream", ""}
)
_SEGMENT = re.compile(r"^[\w][\w .\-]*$")
_DOCUMENT_ID = re.compile(r"^d_[0-9a-f]{8,64}$")


class DocumentSummary(msgspec.Struct, kw_only=True, rename="camel"):
    id: str
    scope: str
    path: str  # relative to the knowledge base root: "<scope>/<path in scope>"
    title: str | None = None
    version: int | None = None
    content_hash: str | None = None
    updated: str | None = None
    ingested_at: str | None = None


class DocumentPage(msgspec.Struct, kw_only=True, rename="camel"):
    items: list[DocumentSummary]
    next_cursor: str | None  # pass as ?cursor= for the next page; null on the last page


class Heading(msgspec.Struct, kw_only=True, rename="camel"):
    id: str
    ordinal: int
    level: int
    text: str
    heading_path: list[str]
    start_offset: int | None = None
    end_offset: int | None = None
    start_line: int | None = None
    end_line: int | None = None
    parent_id: str | None = None


class Paragraph(msgspec.Struct, kw_only=True, rename="camel"):
    id: str
    ordinal: int
    kind: str
    heading_path: list[str]
    start_offset: int
    end_offset: int  # source[startOffset:endOffset] == text
    start_line: int
    end_line: int
    text: str


class Document(DocumentSummary, kw_only=True, rename="camel"):
    valid_until: str | None = None
    superseded_by: str | None = None
    embedding_status: str | None = None
    headings: list[Heading] = msgspec.field(default_factory=list)
    paragraphs: list[Paragraph] = msgspec.field(default_factory=list)


class UploadProblem(msgspec.Struct, kw_only=True):
    line: int
    severity: str
    message: str


class UploadResult(msgspec.Struct, kw_only=True, rename="camel"):
    document_id: str
    scope: str
    path: str
    status: Literal["added", "updated", "unchanged"]
    paragraphs: int
    warnings: list[UploadProblem]


@dataclass
class UploadForm:
    """multipart/form-data: the Markdown file, its scope, and optionally its path in the scope
    (default: the file's name)."""

    scope: str
    file: UploadFile
    path: str | None = None


class DocumentController(Controller):
    path = "/documents"
    tags = ["documents"]  # noqa: RUF012

    @get(sync_to_thread=True, responses=v1_problems(404))
    def list_documents(
        self,
        resources: AppResources,
        grant: Grant,
        scope_name: Annotated[str | None, Parameter(query="scope", pattern=SCOPE_PATTERN)] = None,
        cursor: Annotated[str | None, Parameter(max_length=200)] = None,
        limit: Annotated[int, Parameter(ge=1)] = 50,
    ) -> DocumentPage:
        """Documents of the readable scopes (or of one), ordered by id, one page at a time."""
        scopes = [readable_scope(grant, scope_name)] if scope_name is not None else grant.readable()
        limit = min(limit, resources.settings.api.max_page_size)
        after = decode_cursor(cursor, _DOCUMENT_ID) if cursor else ""
        rows = resources.request_graph().read(
            "api/documents_page", scopes=scopes, after=after, limit=limit + 1
        )
        items = [msgspec.convert(row, DocumentSummary) for row in rows[:limit]]
        more = len(rows) > limit
        return DocumentPage(items=items, next_cursor=encode_cursor(items[-1].id) if more else None)

    @get("/{document_id:str}", sync_to_thread=True, responses=v1_problems(404))
    def get_document(self, resources: AppResources, grant: Grant, document_id: str) -> Document:
        """A document's structure: headings and paragraphs with exact offsets and lines."""
        graph = resources.request_graph()
        meta = _readable_document(graph, grant, document_id)
        return msgspec.convert(
            {
                **meta,
                "headings": graph.read("api/document_headings", id=document_id),
                "paragraphs": graph.read("api/document_paragraphs", id=document_id),
            },
            Document,
        )

    @post(
        guards=[requires_write],
        status_code=201,
        responses={
            200: ResponseSpec(UploadResult, description="updated, or unchanged (a no-op)"),
            **v1_problems(403, 404, 413, 415, 422),
        },
    )
    async def upload(
        self,
        resources: AppResources,
        grant: Grant,
        data: Annotated[UploadForm, Body(media_type=RequestEncodingType.MULTI_PART)],
    ) -> Response[UploadResult]:
        """Ingest one Markdown document into a scope (201 added, 200 updated or unchanged)."""
        scope = readable_scope(grant, data.scope)
        name = data.path if data.path is not None else (data.file.filename or "")
        content_type = (data.file.content_type or "").split(";")[0].strip().lower()
        if data.path is None and not name.lower().endswith(MARKDOWN_SUFFIX):
            raise problem(415, f"only Markdown files ({MARKDOWN_SUFFIX}) can be uploaded")
        if content_type not in _MARKDOWN_TYPES:
            raise problem(415, f"unsupported media type {content_type!r}: upload Markdown text")
        relative = _checked_path(name)
        raw = await data.file.read()
        limit = resources.settings.ingest.max_file_bytes
        if len(raw) > limit:
            raise problem(413, f"the document is larger than {limit} bytes")
        _check_text(raw)
        graph = resources.request_graph()
        async with resources.scope_lock(scope):
            report = await anyio.to_thread.run_sync(
                _ingest_one, resources, graph, scope, relative, raw
            )
        path = f"{scope}/{relative}"
        errors = [p for p in report.problems if p.severity == "error"]
        if errors:
            raise problem(422, "the document could not be ingested",
                          errors=[msgspec.to_builtins(p) for p in errors])  # fmt: skip
        status: Literal["added", "updated", "unchanged"] = (
            "added" if path in report.added else "updated" if path in report.updated
            else "unchanged"
        )  # fmt: skip
        doc_id = document_id(scope, path)
        count = graph.read("api/document", id=doc_id)
        result = UploadResult(
            document_id=doc_id, scope=scope, path=path, status=status,
            paragraphs=int(count[0]["paragraphs"]) if count else 0,
            warnings=[UploadProblem(line=p.line, severity=p.severity, message=p.message)
                      for p in report.problems],
        )  # fmt: skip
        return Response(
            result,
            status_code=201 if status == "added" else 200,
            headers={"Location": f"/v1/documents/{doc_id}"},
        )

    @delete(
        "/{document_id:str}", guards=[requires_write], responses=v1_problems(403, 404),
    )  # fmt: skip
    async def delete_document(
        self, resources: AppResources, grant: Grant, document_id: str
    ) -> None:
        """Remove a document, its headings, paragraphs and the relations it declared."""
        graph = resources.request_graph()
        meta = await anyio.to_thread.run_sync(_readable_document, graph, grant, document_id)
        scope = str(meta["scope"])
        async with resources.scope_lock(scope):
            await anyio.to_thread.run_sync(_delete_one, graph, scope, document_id)


def _readable_document(graph: Graph, grant: Grant, doc_id: str) -> dict[str, Any]:
    rows = graph.read("api/document", id=doc_id)
    if not rows or not grant.can_read(str(rows[0]["scope"])):
        raise not_found("document")  # the same answer whether it exists elsewhere or not
    return rows[0]


def _ingest_one(
    resources: AppResources, graph: Graph, scope: str, relative: str, raw: bytes
) -> IngestReport:
    """The CLI's ingestion over a folder holding just this file at its path in the scope
    (the caller holds the scope's lock)."""
    with tempfile.TemporaryDirectory(prefix="kgs-upload-") as folder:
        target = Path(folder, relative)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(raw)  # bytes as sent: offsets index exactly this text
        return ingest(
            graph, resources.embedder, Path(folder), IngestOptions(scope=scope),
            resources.settings.ingest,
        )  # fmt: skip


def _delete_one(graph: Graph, scope: str, doc_id: str) -> None:
    """The caller holds the scope's lock."""
    delete_document(graph, doc_id)
    prune_knowledge_points(graph, scope)
    graph.write("ingest/refresh_degrees", scope=scope)


def _checked_path(name: str) -> str:
    parts = name.split("/")
    if (
        not name
        or len(name) > MAX_PATH_CHARS
        or len(parts) > MAX_PATH_DEPTH
        or not all(_SEGMENT.match(part) for part in parts)
        or not name.endswith(MARKDOWN_SUFFIX)
    ):
        raise bad_request(
            f"invalid path {name[:80]!r}: segments of letters, digits, ' ', '.', '_', '-' "
            f"separated by '/', not starting with '.', ending in {MARKDOWN_SUFFIX}, "
            f"at most {MAX_PATH_DEPTH} deep and {MAX_PATH_CHARS} characters"
        )
    return name


def _check_text(raw: bytes) -> None:
    if b"\x00" in raw:
        raise problem(415, "binary content (NUL bytes): upload Markdown text")
    try:
        raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise problem(415, f"not valid UTF-8 at byte {error.start}: upload UTF-8 text") from None
