// mode: read
// returns: scope, documents
// The scopes that hold documents, within the readable ones ($scopes null: every scope), by
// name, with their active documents (the MCP tool list_scopes). One more than the limit is
// asked for, to say the list was cut.
// :param scopes => ['waterglass']
// :param limit => 1001
MATCH (d:Document)
WHERE ($scopes IS NULL OR d.scope IN $scopes) AND coalesce(d.status, 'active') = 'active'
RETURN d.scope AS scope, count(d) AS documents
ORDER BY scope
LIMIT $limit
