// mode: read
// returns: traceId, scope, stage, errorType, status, createdAt
// The newest failure records in the window, at most $limit, examining at most $scan of them
// (newest first, by the createdAtMs index) whatever the scope filter.
// :param sinceMs => 1764288000000
// :param untilMs => 1764892800000
// :param scopes => null
// :param scope => 'kitchen'
// :param limit => 20
// :param scan => 2000
MATCH (f:RequestFailure)
WHERE f.createdAtMs >= $sinceMs AND f.createdAtMs < $untilMs
WITH f ORDER BY f.createdAtMs DESC LIMIT $scan
WITH f WHERE ($scopes IS NULL OR f.scope IN $scopes) AND ($scope IS NULL OR f.scope = $scope)
RETURN f.traceId AS traceId, f.scope AS scope, f.stage AS stage, f.errorType AS errorType,
       f.status AS status, f.createdAt AS createdAt
ORDER BY f.createdAtMs DESC
LIMIT $limit
