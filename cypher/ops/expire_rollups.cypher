// mode: write
// Retention of the operations rollups: up to $batch of those before $beforeMs (hourMs or dayMs).
// :param beforeMs => 1730000000000
// :param batch => 5000
CALL () {
  MATCH (h:OpsHour) WHERE h.hourMs < $beforeMs RETURN h AS n
  UNION ALL
  MATCH (l:OpsLatencyDay) WHERE l.dayMs < $beforeMs RETURN l AS n
  UNION ALL
  MATCH (c:OpsCitedDay) WHERE c.dayMs < $beforeMs RETURN c AS n
  UNION ALL
  MATCH (q:OpsGapDay) WHERE q.dayMs < $beforeMs RETURN q AS n
  UNION ALL
  MATCH (f:OpsFailureHour) WHERE f.hourMs < $beforeMs RETURN f AS n
}
WITH n LIMIT $batch
DELETE n
RETURN count(*) AS deleted
