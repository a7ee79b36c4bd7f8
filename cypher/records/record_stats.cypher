// mode: read
// returns: scope, status, records, stale, bytes
// Answer records by scope and status: how many, how many stale, and the bytes of their stored
// responses (the /metrics gauges, read at most once a minute).
MATCH (r:AnswerRecord)
RETURN r.scope AS scope, r.status AS status, count(*) AS records,
       count(r.staleAt) AS stale, sum(size(r.response)) AS bytes
