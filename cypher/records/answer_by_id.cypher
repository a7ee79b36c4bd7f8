// mode: read
// returns: id, replayId, scope, scopes, query, status, createdAt, keyName, stale, trace
// One stored answer record with its compressed trace (GET /v1/traces/{traceId} on a replica
// that did not answer it, or after a restart).
// :param id => 't_0123456789abcdef'
MATCH (r:AnswerRecord {id: $id})
RETURN r.id AS id, r.replayId AS replayId, r.scope AS scope, r.scopes AS scopes,
       r.query AS query, r.status AS status, r.createdAt AS createdAt, r.keyName AS keyName,
       r.staleAt IS NOT NULL AS stale, r.trace AS trace
