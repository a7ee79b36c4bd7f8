// mode: read
// returns: seq, names, points
// Every knowledge point of a scope with the names a question may call it by, for the
// service's name cache (service/pipeline/name_cache.py), and the scope's change-feed position
// read first: a change committed during this read makes the entry older than its names, never
// newer, so the next question sees the feed moved and reloads. names holds
// [id, title, aliases, documentId, path] (one per describing document); at most $limit
// knowledge points are read, points counts them.
// :param scope => 'bench-latency-100k'
// :param limit => 200001
CALL {
  OPTIONAL MATCH (c:ChangeCounter {feed: $scope})
  RETURN coalesce(c.seq, 0) AS seq
}
CALL {
  MATCH (k:KnowledgePoint {scope: $scope})
  WITH k LIMIT $limit
  OPTIONAL MATCH (k)-[:DESCRIBED_IN]->(d:Document)
  RETURN collect([k.id, k.title, k.aliases, d.id, d.path]) AS names, count(DISTINCT k) AS points
}
RETURN seq, names, points
