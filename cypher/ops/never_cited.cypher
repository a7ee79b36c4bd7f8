// mode: read
// returns: scope, documentId, title
// Active documents in the scopes that no answer cited in the window (whole days), by id, among
// at most $scan documents of the scopes, so that the cost stays bounded in a large database.
// :param sinceMs => 1764288000000
// :param untilMs => 1764892800000
// :param scopes => null
// :param scope => 'kitchen'
// :param limit => 10
// :param scan => 5000
MATCH (d:Document)
WHERE ($scopes IS NULL OR d.scope IN $scopes) AND ($scope IS NULL OR d.scope = $scope)
  AND coalesce(d.status, 'active') = 'active'
WITH d LIMIT $scan
WITH d WHERE NOT EXISTS {
    MATCH (c:OpsCitedDay {documentId: d.id})
    WHERE c.dayMs >= $sinceMs AND c.dayMs < $untilMs
  }
RETURN d.scope AS scope, d.id AS documentId, d.title AS title
ORDER BY d.id
LIMIT $limit
