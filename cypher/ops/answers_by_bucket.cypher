// mode: read
// returns: startMs, status, answers
// Answers by time bucket and status in [$sinceMs, $untilMs) (whole hours), from the hourly
// rollups: the cost follows the window and the scopes, not the number of answers. $scopes is
// the key's readable scopes (null: all); $scope narrows to one (null: every readable one).
// :param sinceMs => 1764288000000
// :param untilMs => 1764892800000
// :param bucketMs => 3600000
// :param scopes => null
// :param scope => 'kitchen'
MATCH (h:OpsHour)
WHERE h.hourMs >= $sinceMs AND h.hourMs < $untilMs
  AND ($scopes IS NULL OR h.scope IN $scopes) AND ($scope IS NULL OR h.scope = $scope)
RETURN h.hourMs - h.hourMs % $bucketMs AS startMs, h.status AS status, sum(h.answers) AS answers
ORDER BY startMs, status
