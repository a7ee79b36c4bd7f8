// mode: read
// returns: items, scanned, lastMs, lastId
// A page of answer records, newest first, after the cursor ($beforeMs, $beforeId: where the
// previous page stopped; the first page passes a time after every record and ''). At most
// $scan records are examined, in the createdAtMs index's order, so a page costs the same
// whatever its filters: a rare filter may fill a page only partly, and the next page goes on
// from the last record examined (lastMs, lastId). Every filter is optional (null); $scopes is
// the key's readable scopes (null: all).
// :param scopes => null
// :param scope => 'waterglass'
// :param status => 'abstained'
// :param sinceMs => 1764547200000
// :param q => 'water'
// :param stale => null
// :param beforeMs => 9007199254740991
// :param beforeId => ''
// :param limit => 50
// :param scan => 2000
MATCH (r:AnswerRecord)
WHERE r.createdAtMs <= $beforeMs
  AND NOT (r.createdAtMs = $beforeMs AND r.id >= $beforeId)
  AND ($sinceMs IS NULL OR r.createdAtMs >= $sinceMs)
WITH r ORDER BY r.createdAtMs DESC, r.id DESC LIMIT $scan
WITH collect(r) AS window
WITH window, [r IN window WHERE
  ($scopes IS NULL OR r.scope IN $scopes)
  AND ($scope IS NULL OR r.scope = $scope)
  AND ($status IS NULL OR r.status = $status)
  AND ($q IS NULL OR toLower(r.query) CONTAINS $q)
  AND ($stale IS NULL OR (r.staleAt IS NOT NULL) = $stale)
][..$limit] AS hits
WITH window, hits,
     CASE WHEN size(hits) = $limit THEN hits[-1] ELSE window[-1] END AS last
RETURN [r IN hits | {
         id: r.id, scope: r.scope, query: r.query, status: r.status, createdAt: r.createdAt,
         createdAtMs: r.createdAtMs, keyName: r.keyName, client: coalesce(r.client, 'rest'),
         evidenceStatus: r.evidenceStatus,
         stale: r.staleAt IS NOT NULL, staleReason: r.staleReason
       }] AS items,
       size(window) AS scanned, last.createdAtMs AS lastMs, last.id AS lastId
