// mode: read
// returns: scope
// The scopes that hold documents, within the readable ones ($scopes null: every scope), by
// name: what a question without a scope considers. The caller asks for one more than its limit
// to learn that there are too many without listing them all.
// :param scopes => ['waterglass']
// :param limit => 1001
MATCH (d:Document)
WHERE $scopes IS NULL OR d.scope IN $scopes
RETURN DISTINCT d.scope AS scope
ORDER BY scope
LIMIT $limit
