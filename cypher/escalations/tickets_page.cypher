// mode: read
// returns: tickets
// A page of tickets, newest first, after the cursor ($beforeMs, $beforeId: the last ticket of
// the previous page; the first page passes a time after every ticket and ''). Filters are
// optional (null); $scopes is the key's readable scopes (null: all).
// :param scopes => null
// :param scope => 'kitchen'
// :param status => 'open'
// :param beforeMs => 9007199254740991
// :param beforeId => ''
// :param limit => 50
MATCH (t:Ticket)
WHERE t.createdAtMs <= $beforeMs
  AND NOT (t.createdAtMs = $beforeMs AND t.id >= $beforeId)
  AND ($scopes IS NULL OR t.scope IN $scopes)
  AND ($scope IS NULL OR t.scope = $scope)
  AND ($status IS NULL OR t.status = $status)
WITH t ORDER BY t.createdAtMs DESC, t.id DESC LIMIT $limit
RETURN collect(t {.*, cited: [(t)-[:CITES]->(p:Paragraph) | p.id]}) AS tickets
