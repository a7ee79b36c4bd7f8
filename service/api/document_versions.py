"""A document's history and lifecycle: its versions, the exact source of any version, withdraw
and restore (docs/versions.md). Upload and purge are in documents.py.

Withdraw takes the head out of every answer and keeps the document restorable; restore ingests
the head version's stored source again, so the document comes back as it was (its vectors are
computed again, with the model answers use now).
"""

from __future__ import annotations

from functools import partial
from typing import Annotated
from urllib.parse import quote

import anyio
import msgspec
from litestar import Controller, Response, get, post
from litestar.params import Parameter

from ingest.lifecycle import restore, withdraw
from ingest.versions import WITHDRAWN, parse_if_match
from service.api.auth import Grant, requires_write
from service.api.documents import (
    VERSION,
    UploadResult,
    etag,
    head_changed,
    missing_version,
    readable_document,
    stored_version,
    upload_result,
)
from service.api.errors import v1_problems
from service.api.state import AppResources

__all__ = ["DocumentVersionController"]

_IF_MATCH = Parameter(header="If-Match", max_length=64)


class VersionSummary(msgspec.Struct, kw_only=True, rename="camel"):
    version: int
    content_hash: str
    created_at: str
    paragraphs: int
    headings: int
    head: bool  # the version answers come from (while the document is active)
    cited_by: int  # answer records citing it: retention keeps it while any is kept


class VersionHistory(msgspec.Struct, kw_only=True, rename="camel"):
    document_id: str
    status: str  # active | withdrawn
    head_version: int
    items: list[VersionSummary]  # newest first; versions released by retention are gone


class Lifecycle(msgspec.Struct, kw_only=True, rename="camel"):
    document_id: str
    status: str
    version: int


class DocumentVersionController(Controller):
    path = "/documents/{document_id:str}"
    tags = ["documents"]  # noqa: RUF012

    @get("/versions", sync_to_thread=True, responses=v1_problems(404))
    def versions(
        self, resources: AppResources, grant: Grant, document_id: str
    ) -> Response[VersionHistory]:
        """Every retained version of a document, newest first."""
        graph = resources.request_graph()
        meta = readable_document(graph, grant, document_id)
        rows = graph.read("api/document_versions", id=document_id)
        history = VersionHistory(
            document_id=document_id, status=str(meta["status"]),
            head_version=int(meta["version"] or 0),
            items=[msgspec.convert(row, VersionSummary) for row in rows],
        )  # fmt: skip
        return Response(history, headers={"ETag": etag(history.head_version)})

    @get("/source", sync_to_thread=True, media_type="text/markdown; charset=utf-8",
         responses=v1_problems(404, 410))  # fmt: skip
    def source(
        self,
        resources: AppResources,
        grant: Grant,
        document_id: str,
        version: Annotated[int | None, VERSION] = None,
        original: Annotated[
            bool,
            Parameter(
                description="the file as it was uploaded or ingested (a PDF, HTML or Word file), "
                "not the Markdown text it was converted to; for Markdown, the same text"
            ),
        ] = False,
    ) -> Response[str | bytes]:
        """The exact text of a version (the head's by default): what its offsets index; with
        `original=true`, the original file of a converted document."""
        graph = resources.request_graph()
        meta = readable_document(graph, grant, document_id)
        head = int(meta["version"] or 0)
        headers = {"ETag": etag(head), "X-Document-Version": str(version or head)}
        if original:
            rows = graph.read("api/document_original", id=document_id, version=version or head)
            if not rows:
                raise missing_version(graph, document_id, version or head)
            row = rows[0]
            name = str(row["path"]).rsplit("/", 1)[-1]
            disposition = f"inline; filename*=UTF-8''{quote(name)}"
            if row["original"] is not None:
                return Response(
                    bytes(row["original"]),
                    media_type=str(row["mediaType"]),
                    headers={**headers, "Content-Disposition": disposition},
                )
            return Response(
                str(row["source"]),
                media_type="text/markdown; charset=utf-8",
                headers={**headers, "Content-Disposition": disposition},
            )
        stored = stored_version(graph, document_id, version or head)
        return Response(
            str(stored["source"]), media_type="text/markdown; charset=utf-8", headers=headers
        )

    @post("/withdraw", guards=[requires_write], status_code=200,
          responses=v1_problems(403, 404, 409, 412))  # fmt: skip
    async def withdraw(
        self,
        resources: AppResources,
        grant: Grant,
        document_id: str,
        if_match: Annotated[str | None, _IF_MATCH] = None,
    ) -> Response[Lifecycle]:
        """Take a document out of every answer; its versions stay, and restore brings it back."""
        graph = resources.request_graph()
        meta = await anyio.to_thread.run_sync(readable_document, graph, grant, document_id)
        scope = str(meta["scope"])
        async with resources.scope_lock(scope):
            with head_changed():
                version = await anyio.to_thread.run_sync(
                    partial(withdraw, graph, document_id, if_match=parse_if_match(if_match))
                )
        return Response(
            Lifecycle(document_id=document_id, status=WITHDRAWN, version=version),
            headers={"ETag": etag(version)},
        )

    @post("/restore", guards=[requires_write], status_code=200,
          responses=v1_problems(403, 404, 409, 412, 422))  # fmt: skip
    async def restore(
        self,
        resources: AppResources,
        grant: Grant,
        document_id: str,
        if_match: Annotated[str | None, _IF_MATCH] = None,
    ) -> Response[UploadResult]:
        """Bring a withdrawn document back into answers, at the version it was withdrawn at."""
        graph = resources.request_graph()
        meta = await anyio.to_thread.run_sync(readable_document, graph, grant, document_id)
        scope, path = str(meta["scope"]), str(meta["path"])
        async with resources.scope_lock(scope):
            with head_changed():
                report = await anyio.to_thread.run_sync(
                    partial(restore, graph, resources.embedder, resources.settings.ingest,
                            document_id, if_match=parse_if_match(if_match))
                )  # fmt: skip
        result = upload_result(graph, scope, path, report)
        return Response(result, headers={"ETag": etag(result.version)})
