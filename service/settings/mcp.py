"""The Model Context Protocol server (KGS_MCP_*, docs/mcp.md)."""

from __future__ import annotations

import msgspec

__all__ = ["McpSettings"]


class McpSettings(msgspec.Struct, frozen=True, kw_only=True):
    """`kgs serve` mounts the server at /mcp (streamable HTTP) and `kgs mcp` speaks it over
    stdio. The REST limits apply as they are (query length, topK, scopes, rate limits); these
    bound what only a tool returns."""

    enabled: bool = True  # serve /mcp beside the REST API
    # The key `kgs mcp` (stdio) presents for every call, as X-API-Key would over HTTP; unset
    # with keys configured, every tool call is refused.
    api_key: str = ""
    max_search_results: int = 20  # paragraphs one search returns
    # Characters of paragraph text one get_document returns; a longer document ends with
    # `nextParagraph`, the `from_paragraph` to ask for next.
    max_document_chars: int = 60_000
    max_scopes_listed: int = 1000  # list_scopes
    # Streamable HTTP Host header check against DNS rebinding (comma-separated "host:port"
    # patterns, "*" for any port); empty: any Host (a deployment behind its own proxy).
    allowed_hosts: str = ""

    def host_patterns(self) -> list[str]:
        return [h.strip() for h in self.allowed_hosts.split(",") if h.strip()]
