// mode: read
// One page of documents ordered by id, after the cursor's id, in the readable scopes
// ($scopes null: every scope) and with one of $statuses (active, withdrawn). The API asks for
// one row more than the page to know if more exist.
// :param scopes => ['waterglass']
// :param after => ''
// :param statuses => ['active']
// :param limit => 50
MATCH (d:Document)
WHERE ($scopes IS NULL OR d.scope IN $scopes) AND d.id > $after
  AND coalesce(d.status, 'active') IN $statuses
RETURN d.id AS id, d.scope AS scope, d.path AS path, d.title AS title, d.version AS version,
       d.contentHash AS contentHash, d.updated AS updated, d.ingestedAt AS ingestedAt,
       coalesce(d.status, 'active') AS status
ORDER BY d.id
LIMIT $limit
