// mode: read
// returns: startMs, failures
// Failed requests of the answer path by time bucket in the window, from the hourly rollups.
// :param sinceMs => 1764288000000
// :param untilMs => 1764892800000
// :param bucketMs => 3600000
// :param scopes => null
// :param scope => 'kitchen'
MATCH (f:OpsFailureHour)
WHERE f.hourMs >= $sinceMs AND f.hourMs < $untilMs
  AND ($scopes IS NULL OR f.scope IN $scopes) AND ($scope IS NULL OR f.scope = $scope)
RETURN f.hourMs - f.hourMs % $bucketMs AS startMs, sum(f.failures) AS failures
ORDER BY startMs
