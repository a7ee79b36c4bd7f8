"""Documents: list (cursor pages), read (structure with offsets), upload Markdown, purge.

An upload runs the CLI's own ingestion (`ingest.pipeline.ingest`) on the uploaded file placed at
its path inside the scope, so parsing, identifiers, skip-if-unchanged and the end-of-scope steps
are the same; re-uploading unchanged content changes nothing and answers `unchanged`.

Every response about one document carries its head version as an ETag; an upload or a purge
with If-Match succeeds only while the head is still that version (docs/versions.md). History,
withdraw and restore live in document_versions.py.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from typing import Annotated, Any, Literal

import anyio
import msgspec
from litestar import Controller, Response, delete, get, post
from litestar.datastructures import UploadFile
from litestar.enums import RequestEncodingType
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import Body, Parameter
from litestar.plugins.problem_details import ProblemDetailsException

from ingest.convert import SUPPORTED_EXTENSIONS, converter_for
from ingest.convert.base import ConversionError
from ingest.convert.text import MarkdownConverter
from ingest.lifecycle import purge
from ingest.pipeline import SNIFF_BYTES, IngestReport, ingest_file_text
from ingest.units import document_id
from ingest.versions import ACTIVE, WITHDRAWN, HeadChanged, decode_structure, parse_if_match
from service.api.auth import Grant, requires_write
from service.api.cursors import decode_cursor, encode_cursor
from service.api.errors import bad_request, not_found, problem, v1_problems
from service.api.scopes import SCOPE_PATTERN, readable_scope
from service.api.state import AppResources
from service.db.graph import Graph

__all__ = [
    "VERSION",
    "DocumentController",
    "etag",
    "head_changed",
    "ingest_text",
    "missing_version",
    "read_document",
    "readable_document",
    "stored_version",
    "upload_result",
]

MAX_PATH_CHARS = 255
MAX_PATH_DEPTH = 8
# Media types files arrive with from curl, browsers and HTTP libraries: the content decides the
# format (ingest/convert sniffs it), so a generic or textual type is never refused.
_GENERIC_TYPES = frozenset({"application/octet-stream", "text/plain", ""})
_OTHER_NAMES = {"text/markdown": "text/x-markdown", "text/html": "application/xhtml+xml"}
_SEGMENT = re.compile(r"^[\w][\w .\-]*$")
_DOCUMENT_ID = re.compile(r"^d_[0-9a-f]{8,64}$")
MAX_VERSION = 2**31 - 1  # a larger number could never be a version (and overflows a query)
VERSION = Parameter(ge=1, le=MAX_VERSION, description="a version number (1, 2, ...)")


class DocumentSummary(msgspec.Struct, kw_only=True, rename="camel"):
    id: str
    scope: str
    path: str  # relative to the knowledge base root: "<scope>/<path in scope>"
    title: str | None = None
    version: int | None = None  # the head version (the ETag); or the version asked for
    content_hash: str | None = None
    updated: str | None = None
    ingested_at: str | None = None
    status: Literal["active", "withdrawn"] = "active"  # withdrawn: in no answer, restorable


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
    page_first: int | None = None  # a PDF's page (docs/formats.md)
    page_last: int | None = None
    anchor: str | None = None  # an HTML page's element id


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
    # Where a converted document held it (docs/formats.md): the PDF pages it was printed on, the
    # offsets inside `text` where each page after the first begins, the HTML anchor before it.
    page_first: int | None = None
    page_last: int | None = None
    page_starts: list[int] | None = None
    anchor: str | None = None


class Document(DocumentSummary, kw_only=True, rename="camel"):
    head_version: int | None = None  # differs from version when an older one was asked for
    created_at: str | None = None  # when this version was made
    valid_until: str | None = None
    superseded_by: str | None = None
    embedding_status: str | None = None
    # The original file: Markdown, or a converted PDF, HTML, Word or text file, whose bytes
    # GET .../source?original=true returns.
    media_type: str = "text/markdown"
    original_hash: str | None = None  # sha256 of the original file
    original_size: int | None = None  # bytes
    pages: int | None = None  # a PDF's page count
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
    status: Literal["added", "updated", "unchanged", "restored"]
    version: int  # the head version after the upload (also the ETag)
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
        status: Literal["active", "withdrawn", "all"] = "active",
        cursor: Annotated[str | None, Parameter(max_length=200)] = None,
        limit: Annotated[int, Parameter(ge=1)] = 50,
    ) -> DocumentPage:
        """Documents of the readable scopes (or of one), ordered by id, one page at a time;
        active ones unless `status` asks for withdrawn ones or all."""
        scopes = [readable_scope(grant, scope_name)] if scope_name is not None else grant.readable()
        limit = min(limit, resources.settings.api.max_page_size)
        after = decode_cursor(cursor, _DOCUMENT_ID) if cursor else ""
        statuses = [ACTIVE, WITHDRAWN] if status == "all" else [status]
        rows = resources.request_graph().read(
            "api/documents_page", scopes=scopes, after=after, statuses=statuses, limit=limit + 1
        )
        items = [msgspec.convert(row, DocumentSummary) for row in rows[:limit]]
        more = len(rows) > limit
        return DocumentPage(items=items, next_cursor=encode_cursor(items[-1].id) if more else None)

    @get("/{document_id:str}", sync_to_thread=True, responses=v1_problems(404, 410))
    def get_document(
        self,
        resources: AppResources,
        grant: Grant,
        document_id: str,
        version: Annotated[int | None, VERSION] = None,
    ) -> Response[Document]:
        """A document's structure: headings and paragraphs with exact offsets and lines; of
        its head, or of an earlier version exactly as it was (`version`)."""
        document = read_document(resources.request_graph(), grant, document_id, version)
        return Response(document, headers={"ETag": etag(document.head_version or 0)})

    @post(
        guards=[requires_write],
        status_code=201,
        responses={
            200: ResponseSpec(UploadResult, description="updated, restored, or unchanged"),
            **v1_problems(403, 404, 412, 413, 415, 422),
        },
    )
    async def upload(
        self,
        resources: AppResources,
        grant: Grant,
        data: Annotated[UploadForm, Body(media_type=RequestEncodingType.MULTI_PART)],
        if_match: Annotated[str | None, Parameter(header="If-Match", max_length=64)] = None,
    ) -> Response[UploadResult]:
        """Ingest one Markdown document into a scope (201 added, 200 updated, restored or
        unchanged). With If-Match, only while the head is still that version (412 otherwise);
        without it, the upload becomes the next version whatever the head is."""
        scope = readable_scope(grant, data.scope)
        name = data.path if data.path is not None else (data.file.filename or "")
        content_type = (data.file.content_type or "").split(";")[0].strip().lower()
        if data.path is None and not _supported(name):
            raise problem(415, f"unsupported file type {name[-40:]!r}: upload one of "
                          f"{', '.join(SUPPORTED_EXTENSIONS)}")  # fmt: skip
        relative = _checked_path(name)
        raw = await data.file.read()
        limit = resources.settings.ingest.max_file_bytes
        if len(raw) > limit:
            raise problem(413, f"the document is larger than {limit} bytes")
        _check_format(relative, content_type, raw)
        result = await ingest_text(resources, scope, relative, raw, parse_if_match(if_match))
        return Response(
            result,
            status_code=201 if result.status == "added" else 200,
            headers={"Location": f"/v1/documents/{result.document_id}",
                     "ETag": etag(result.version)},
        )  # fmt: skip

    @delete(
        "/{document_id:str}", guards=[requires_write], responses=v1_problems(403, 404, 412),
    )  # fmt: skip
    async def delete_document(
        self,
        resources: AppResources,
        grant: Grant,
        document_id: str,
        if_match: Annotated[str | None, Parameter(header="If-Match", max_length=64)] = None,
    ) -> None:
        """Purge a document for good: every version, its headings, paragraphs and the relations
        it declared (POST .../withdraw keeps it restorable)."""
        graph = resources.request_graph()
        meta = await anyio.to_thread.run_sync(readable_document, graph, grant, document_id)
        scope = str(meta["scope"])
        expected = parse_if_match(if_match)
        async with resources.scope_lock(scope):
            with head_changed():
                await anyio.to_thread.run_sync(partial(purge, graph, document_id,
                                                       if_match=expected))  # fmt: skip


async def ingest_text(
    resources: AppResources, scope: str, relative: str, raw: bytes, if_match: int | None
) -> UploadResult:
    """Ingest one document's text at its path in the scope, as an upload does."""
    graph = resources.request_graph()
    async with resources.scope_lock(scope):
        with head_changed():
            report = await anyio.to_thread.run_sync(
                partial(ingest_file_text, graph, resources.embedder, scope, relative, raw,
                        resources.settings.ingest, if_match=if_match)
            )  # fmt: skip
    return upload_result(graph, scope, f"{scope}/{relative}", report)


def upload_result(graph: Graph, scope: str, path: str, report: IngestReport) -> UploadResult:
    """What an ingestion of one document did to it, or a 422 naming its errors."""
    errors = [p for p in report.problems if p.severity == "error"]
    if errors:
        raise problem(422, "the document could not be ingested",
                      errors=[msgspec.to_builtins(p) for p in errors])  # fmt: skip
    status: Literal["added", "updated", "unchanged", "restored"] = (
        "added" if path in report.added else "updated" if path in report.updated
        else "restored" if path in report.restored else "unchanged"
    )  # fmt: skip
    doc_id = document_id(scope, path)
    count = graph.read("api/document", id=doc_id)
    return UploadResult(
        document_id=doc_id, scope=scope, path=path, status=status,
        version=report.versions.get(path, 0),
        paragraphs=int(count[0]["paragraphs"]) if count else 0,
        warnings=[UploadProblem(line=p.line, severity=p.severity, message=p.message)
                  for p in report.problems],
    )  # fmt: skip


def etag(version: int) -> str:
    return f'"{version}"'


@contextmanager
def head_changed() -> Iterator[None]:
    """HeadChanged as a 412 problem that names the current version (and gives it as ETag)."""
    try:
        yield
    except HeadChanged as error:
        raise problem(412, str(error), headers={"ETag": etag(error.current)},
                      currentVersion=error.current) from None  # fmt: skip


def read_document(graph: Graph, grant: Grant, doc_id: str, version: int | None) -> Document:
    """A readable document's headings and paragraphs, of its head or of `version` (404 for a
    document outside the grant, or a version never made or released)."""
    meta = readable_document(graph, grant, doc_id)
    head = int(meta["version"] or 0)
    wanted = head if version is None else version
    # One immutable node holds the whole version: a read never meets two versions halfway,
    # as separate reads of headings and paragraphs could while a new version commits.
    rows = graph.read("api/document_version", id=doc_id, version=wanted)
    if rows and (version is not None or meta["status"] == ACTIVE):
        parts: dict[str, Any] = {
            **decode_structure(rows[0]["structure"]),
            "version": wanted,
            "contentHash": rows[0]["contentHash"],
            "createdAt": rows[0]["createdAt"],
        }
    elif version is None or version == head:  # written before versions, or withdrawn
        parts = {
            "headings": graph.read("api/document_headings", id=doc_id),
            "paragraphs": graph.read("api/document_paragraphs", id=doc_id),
        }
    else:
        raise missing_version(graph, doc_id, version)
    return msgspec.convert({**meta, "headVersion": head, **parts}, Document)


def readable_document(graph: Graph, grant: Grant, doc_id: str) -> dict[str, Any]:
    rows = graph.read("api/document", id=doc_id)
    if not rows or not grant.can_read(str(rows[0]["scope"])):
        raise not_found("document")  # the same answer whether it exists elsewhere or not
    return rows[0]


def stored_version(graph: Graph, doc_id: str, version: int) -> dict[str, Any]:
    rows = graph.read("api/document_version", id=doc_id, version=version)
    if not rows:
        raise missing_version(graph, doc_id, version)
    return rows[0]


def missing_version(graph: Graph, doc_id: str, version: int) -> ProblemDetailsException:
    """410 Gone, `expired`, for a version retention released (its tombstone says when: seed
    002's "expired"); 404 for one that never existed."""
    rows = graph.read("api/released_version", id=doc_id, version=version)
    if rows:
        gone = problem(410, f"version {version} of the document was released by retention on "
                       f"{rows[0]['releasedAt']} (docs/versions.md); GET .../versions lists the "
                       "versions kept", expired=True, version=version,
                       releasedAt=rows[0]["releasedAt"])  # fmt: skip
        return gone
    return not_found(f"version {version} of the document")


def _checked_path(name: str) -> str:
    parts = name.split("/")
    if (
        not name
        or len(name) > MAX_PATH_CHARS
        or len(parts) > MAX_PATH_DEPTH
        or not all(_SEGMENT.match(part) for part in parts)
        or not _supported(name)
    ):
        raise bad_request(
            f"invalid path {name[:80]!r}: segments of letters, digits, ' ', '.', '_', '-' "
            f"separated by '/', not starting with '.', ending in one of "
            f"{', '.join(SUPPORTED_EXTENSIONS)}, at most {MAX_PATH_DEPTH} deep and "
            f"{MAX_PATH_CHARS} characters"
        )
    return name


def _supported(name: str) -> bool:
    return name.lower().endswith(SUPPORTED_EXTENSIONS)


def _check_format(name: str, content_type: str, raw: bytes) -> None:
    """415 for content that is not what its name says (a PDF named .docx, binary Markdown);
    what a format's converter refuses later (encrypted, scanned, corrupt) is a 422."""
    try:
        converter = converter_for(name, raw[:SNIFF_BYTES])
    except ConversionError as error:
        raise problem(415, error.reason) from None
    named = (converter.media_type, _OTHER_NAMES.get(converter.media_type))
    if content_type not in _GENERIC_TYPES and content_type not in named:
        raise problem(415, f"media type {content_type!r} does not match the file "
                      f"({converter.media_type})")  # fmt: skip
    if name.lower().endswith(MarkdownConverter.extensions):
        if b"\x00" in raw:
            raise problem(415, "binary content (NUL bytes): upload Markdown text")
        try:
            raw.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise problem(415, f"not valid UTF-8 at byte {error.start}: upload UTF-8 text"
                          ) from None  # fmt: skip
