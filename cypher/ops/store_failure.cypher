// mode: write
// A failed request of the answer path (a 5xx or a timeout): its record, and its count in the
// hour's rollup by scope, stage and error type. No question text and no exception text: the
// trace id leads to the service log. A record written twice (the same trace id) counts once.
// :param failure => {traceId: 't_0123456789abcdef', scope: 'kitchen', stage: 'pipeline.retrieval', errorType: 'neo4j-timeout', status: 504, createdAtMs: 1764871234567, createdAt: '2026-12-04T18:00:34.567Z', keyName: 'ops', client: 'rest'}
// :param hourMs => 1764871200000
OPTIONAL MATCH (known:RequestFailure {traceId: $failure.traceId})
WITH known WHERE known IS NULL
CREATE (f:RequestFailure)
SET f = $failure
MERGE (h:OpsFailureHour {scope: $failure.scope, hourMs: $hourMs, stage: $failure.stage,
                         errorType: $failure.errorType})
ON CREATE SET h.failures = 0, h.lastAtMs = 0
SET h.failures = h.failures + 1,
    h.lastAtMs = CASE WHEN $failure.createdAtMs > h.lastAtMs THEN $failure.createdAtMs
                      ELSE h.lastAtMs END
RETURN count(f) AS stored
