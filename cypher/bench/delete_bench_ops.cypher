// mode: write
// Bench only (bench/ops_bench.py): up to $batch answer records, failure records and rollups of
// the scopes whose name starts with $prefix.
// :param prefix => 'bench-ops-'
// :param batch => 10000
CALL () {
  MATCH (n:AnswerRecord) WHERE n.scope STARTS WITH $prefix RETURN n
  UNION ALL
  MATCH (n:RequestFailure) WHERE n.scope STARTS WITH $prefix RETURN n
  UNION ALL
  MATCH (n:OpsHour|OpsLatencyDay|OpsCitedDay|OpsGapDay|OpsFailureHour)
  WHERE n.scope STARTS WITH $prefix RETURN n
}
WITH n LIMIT $batch
DETACH DELETE n
RETURN count(*) AS deleted
