// mode: read
// returns: scope, documentId, title, citations
// The documents answers cited most in the window (whole days), from the daily rollups, with
// their titles (a deleted document keeps its id and has no title).
// :param sinceMs => 1764288000000
// :param untilMs => 1764892800000
// :param scopes => null
// :param scope => 'kitchen'
// :param limit => 10
MATCH (c:OpsCitedDay)
WHERE c.dayMs >= $sinceMs AND c.dayMs < $untilMs
  AND ($scopes IS NULL OR c.scope IN $scopes) AND ($scope IS NULL OR c.scope = $scope)
WITH c.scope AS scope, c.documentId AS documentId, sum(c.citations) AS citations
ORDER BY citations DESC, documentId
LIMIT $limit
OPTIONAL MATCH (d:Document {id: documentId})
RETURN scope, documentId, d.title AS title, citations
ORDER BY citations DESC, documentId
