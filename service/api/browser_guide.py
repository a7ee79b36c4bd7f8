"""GET /browser-guide: the kgs guide for Neo4j Browser, opened there with
`:play http://127.0.0.1:8000/browser-guide`.

The page is `service/api/guide/kgs.html` with each `{{cypher NAME}}` replaced by that statement as
Browser takes it (`Statement.browser_text`: the file's `:param` lines, then the statement), read
from the registry the service itself runs, so the guide's queries are the files under cypher/
and cannot drift from them. `{{guide_url}}` becomes this page's own URL.

The page holds no data, so it needs no API key. Browser fetches it from another origin (the
Neo4j server's) with `pragma` and `cache-control` headers, so the route allows any origin and
answers the CORS preflight itself; Browser also only fetches guides from hosts listed in the
server's `browser.remote_content_hostname_whitelist` (see service/db/local_server.py).
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

from litestar import HttpMethod, MediaType, Request, Response, route

from service.api.state import AppResources
from service.db.cypher_registry import CypherRegistry
from service.errors import KgsError

__all__ = ["GUIDE_PATH", "GuideError", "browser_guide", "render_guide"]

GUIDE_PATH = "/browser-guide"
GUIDE_TEMPLATE = Path(__file__).parent / "guide" / "kgs.html"
_PLACEHOLDER = re.compile(r"\{\{\s*(cypher\s+([\w/]+)|guide_url)\s*\}\}")
_HEADER_LIST = re.compile(r"^[A-Za-z0-9!#$%&'*+.^_`|~-]+(?:\s*,\s*[A-Za-z0-9!#$%&'*+.^_`|~-]+)*$")
_CORS = {"Access-Control-Allow-Origin": "*"}
_PREFLIGHT_MAX_AGE_S = 600


class GuideError(KgsError, ValueError):
    """The guide template names a statement that is missing or has no `:param` lines."""


def render_guide(registry: CypherRegistry, guide_url: str, template: Path = GUIDE_TEMPLATE) -> str:
    """The guide's HTML with every placeholder filled in (statements HTML-escaped)."""

    def fill(match: re.Match[str]) -> str:
        name = match.group(2)
        if name is None:
            return html.escape(guide_url)
        if name not in registry:
            raise GuideError(f"{template.name}: no Cypher statement named {name!r}")
        statement = registry.get(name)
        if statement.parameters and not statement.browser_params:
            raise GuideError(f"{template.name}: cypher/{name}.cypher has no ':param' lines")
        return html.escape(statement.browser_text, quote=False)

    return _PLACEHOLDER.sub(fill, template.read_text(encoding="utf-8"))


@route(
    GUIDE_PATH,
    http_method=[HttpMethod.GET, HttpMethod.OPTIONS],
    sync_to_thread=False,
    include_in_schema=False,  # an HTML page for Neo4j Browser, not an API operation
)
def browser_guide(request: Request[Any, Any, Any], resources: AppResources) -> Response[str]:
    """The Browser guide (GET), or the answer to Browser's CORS preflight (OPTIONS)."""
    if request.method == HttpMethod.OPTIONS:
        asked = request.headers.get("access-control-request-headers", "")
        allowed = asked if _HEADER_LIST.match(asked) else "pragma, cache-control"
        headers = {
            **_CORS,
            "Access-Control-Allow-Methods": "GET, OPTIONS",
            "Access-Control-Allow-Headers": allowed,
            "Access-Control-Max-Age": str(_PREFLIGHT_MAX_AGE_S),
        }
        return Response("", status_code=204, headers=headers)
    graph = resources.graph
    registry = (
        graph.registry if graph is not None else CypherRegistry.load(resources.settings.cypher_dir)
    )
    page = render_guide(registry, str(request.base_url).rstrip("/") + GUIDE_PATH)
    return Response(page, media_type=MediaType.HTML, headers={**_CORS, "Cache-Control": "no-cache"})
