// mode: read
// returns: opened, closed
// Escalation tickets opened and resolved in the window (resolvedAt is ISO 8601 text in UTC, as
// $sinceIso and $untilIso, so that text order is time order).
// :param sinceMs => 1764288000000
// :param untilMs => 1764892800000
// :param sinceIso => '2026-11-28T00:00:00.000Z'
// :param untilIso => '2026-12-05T00:00:00.000Z'
// :param scopes => null
// :param scope => 'kitchen'
MATCH (t:Ticket)
WHERE ($scopes IS NULL OR t.scope IN $scopes) AND ($scope IS NULL OR t.scope = $scope)
RETURN count(CASE WHEN t.createdAtMs >= $sinceMs AND t.createdAtMs < $untilMs THEN 1 END)
         AS opened,
       count(CASE WHEN t.resolvedAt >= $sinceIso AND t.resolvedAt < $untilIso THEN 1 END)
         AS closed
