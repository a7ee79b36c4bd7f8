// mode: read
// returns: stage, counts, answers, sumMs
// Each pipeline stage's latency histogram over the window (whole days), summed bin by bin from
// the daily rollups (the bins' bounds: service/records/rollup.py).
// :param sinceMs => 1764288000000
// :param untilMs => 1764892800000
// :param scopes => null
// :param scope => 'kitchen'
MATCH (l:OpsLatencyDay)
WHERE l.dayMs >= $sinceMs AND l.dayMs < $untilMs
  AND ($scopes IS NULL OR l.scope IN $scopes) AND ($scope IS NULL OR l.scope = $scope)
WITH l.stage AS stage, collect(l.counts) AS histograms, sum(l.sumMs) AS sumMs
WITH stage, sumMs,
     [i IN range(0, size(histograms[0]) - 1) | reduce(n = 0, h IN histograms | n + h[i])] AS counts
RETURN stage, counts, reduce(n = 0, c IN counts | n + c) AS answers, sumMs
ORDER BY stage
