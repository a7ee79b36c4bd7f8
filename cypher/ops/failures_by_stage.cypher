// mode: read
// returns: stage, errorType, failures, lastAtMs
// Failed requests of the answer path in the window by stage and error type, most first.
// :param sinceMs => 1764288000000
// :param untilMs => 1764892800000
// :param scopes => null
// :param scope => 'kitchen'
MATCH (f:OpsFailureHour)
WHERE f.hourMs >= $sinceMs AND f.hourMs < $untilMs
  AND ($scopes IS NULL OR f.scope IN $scopes) AND ($scope IS NULL OR f.scope = $scope)
RETURN f.stage AS stage, f.errorType AS errorType, sum(f.failures) AS failures,
       max(f.lastAtMs) AS lastAtMs
ORDER BY failures DESC, stage, errorType
