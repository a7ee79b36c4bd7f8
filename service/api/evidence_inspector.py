"""The evidence inspector, served at `/`: one page (service/api/inspector/) that asks questions
through /v1 and shows the answer beside its evidence, and an operations tab (docs/inspector.md).
Its graph drawing and chart libraries are vendored in the repository under
service/api/inspector/vendor/ (`make vendor` refreshes them from npm); nothing is loaded from the
internet at run time. The page holds no
data, so it needs no key; the /v1 calls it makes carry the key typed into it."""

from __future__ import annotations

from pathlib import Path

from litestar import MediaType, Response, Router, get
from litestar.handlers import HTTPRouteHandler
from litestar.static_files import create_static_files_router

__all__ = ["INSPECTOR_DIR", "inspector_routes"]

INSPECTOR_DIR = Path(__file__).parent / "inspector"
_HEADERS = {
    # Scripts and styles from this origin only; data from /v1 on this origin.
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; "
    "style-src 'self' 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
}


@get("/", media_type=MediaType.HTML, sync_to_thread=False, include_in_schema=False)
def inspector_page() -> Response[bytes]:
    return Response((INSPECTOR_DIR / "index.html").read_bytes(), media_type=MediaType.HTML,
                    headers=_HEADERS)  # fmt: skip


def inspector_routes() -> list[HTTPRouteHandler | Router]:
    assets = create_static_files_router(
        path="/inspector", directories=[INSPECTOR_DIR], include_in_schema=False,
        name="inspector-assets",
    )  # fmt: skip
    return [inspector_page, assets]
