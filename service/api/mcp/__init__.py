"""kgs over the Model Context Protocol (docs/mcp.md): the same keys, scopes, answers, screens
and records as the REST API, as tools an AI agent calls."""
