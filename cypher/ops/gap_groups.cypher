// mode: read
// returns: scope, key, words, asked, byStatus, lastAskedMs, traceId, query, wordings, examined
// Questions not answered in the window (whole days), grouped by scope and key words, most
// asked first, at most $limit groups: the daily rollups summed; the newest wording and answer
// (its trace id: an escalation starts from it) of each group. At most $scan daily rollups are
// read, the newest days first: each distinct question of a day is one, so a window of many
// distinct questions is read in part (`examined` = $scan), and the cost stays bounded.
// :param sinceMs => 1764288000000
// :param untilMs => 1764892800000
// :param scopes => null
// :param scope => 'kitchen'
// :param limit => 300
// :param scan => 20000
MATCH (q:OpsGapDay)
WHERE q.dayMs >= $sinceMs AND q.dayMs < $untilMs
  AND ($scopes IS NULL OR q.scope IN $scopes) AND ($scope IS NULL OR q.scope = $scope)
WITH q ORDER BY q.dayMs DESC LIMIT $scan
WITH collect(q) AS read
WITH size(read) AS examined, read
UNWIND read AS q
WITH examined, q ORDER BY q.lastAskedMs DESC
WITH examined, q.scope AS scope, q.key AS key, collect(q) AS days
WITH examined, scope, key, days, reduce(n = 0, q IN days | n + q.asked) AS asked
ORDER BY asked DESC, key
LIMIT $limit
RETURN scope, key, days[0].words AS words, asked,
       [q IN days | [q.status, q.asked]] AS byStatus,
       days[0].lastAskedMs AS lastAskedMs, days[0].traceId AS traceId, days[0].query AS query,
       reduce(w = [], q IN days | w + [x IN q.wordings WHERE NOT x IN w]) AS wordings, examined
