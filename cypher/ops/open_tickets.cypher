// mode: read
// returns: id, scope, question
// Escalation tickets not resolved yet in the scopes, newest first, at most $limit: the gaps
// they answer are matched by key words in Python (service/ops/gaps.py).
// :param scopes => null
// :param scope => 'kitchen'
// :param limit => 1000
MATCH (t:Ticket)
WHERE t.status <> 'resolved'
  AND ($scopes IS NULL OR t.scope IN $scopes) AND ($scope IS NULL OR t.scope = $scope)
RETURN t.id AS id, t.scope AS scope, t.question AS question
ORDER BY t.createdAtMs DESC
LIMIT $limit
