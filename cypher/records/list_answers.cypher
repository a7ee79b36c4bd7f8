// mode: read
// returns: id, scope, query, status, createdAt, createdAtMs, keyName, evidenceStatus, stale
// returns: staleReason
// A page of answer records, newest first, after the cursor ($beforeMs, $beforeId: the last
// record of the previous page; the first page passes a time after every record and ''). Every
// filter is optional (null); $scopes is the key's readable scopes (null: all).
// :param scopes => null
// :param scope => 'waterglass'
// :param status => 'abstained'
// :param sinceMs => 1764547200000
// :param q => 'water'
// :param stale => null
// :param beforeMs => 9007199254740991
// :param beforeId => ''
// :param limit => 50
MATCH (r:AnswerRecord)
WHERE r.createdAtMs <= $beforeMs
  AND (r.createdAtMs < $beforeMs OR r.id < $beforeId)
  AND ($sinceMs IS NULL OR r.createdAtMs >= $sinceMs)
  AND ($scopes IS NULL OR r.scope IN $scopes)
  AND ($scope IS NULL OR r.scope = $scope)
  AND ($status IS NULL OR r.status = $status)
  AND ($q IS NULL OR toLower(r.query) CONTAINS $q)
  AND ($stale IS NULL OR (r.staleAt IS NOT NULL) = $stale)
RETURN r.id AS id, r.scope AS scope, r.query AS query, r.status AS status,
       r.createdAt AS createdAt, r.createdAtMs AS createdAtMs, r.keyName AS keyName,
       r.evidenceStatus AS evidenceStatus, r.staleAt IS NOT NULL AS stale,
       r.staleReason AS staleReason
ORDER BY r.createdAtMs DESC, r.id DESC
LIMIT $limit
