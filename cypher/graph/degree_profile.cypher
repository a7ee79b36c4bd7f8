// mode: read
// The anchor's in- and out-degree by relation type, and its rank by total degree in the scope:
// 1 + the points of higher degree, summed from the scope's degree histogram (both refreshed at
// the end of every ingest of the scope, ingest/refresh_degrees); a scope last written before
// the histogram existed counts them instead.
// :param scope => 'graphintent'
// :param id => 'glass-vessel'
MATCH (a:KnowledgePoint {scope: $scope, id: $id})
OPTIONAL MATCH (s:Scope {scope: $scope})
CALL (a) {
  OPTIONAL MATCH (a)-[r]->(:KnowledgePoint)
  RETURN collect(type(r)) AS outTypes
}
CALL (a) {
  OPTIONAL MATCH (a)<-[r]-(:KnowledgePoint)
  RETURN collect(type(r)) AS inTypes
}
CALL (a, s) {
  WITH a WHERE s.knowledgePointDegrees IS NULL
  OPTIONAL MATCH (o:KnowledgePoint {scope: $scope})
  WHERE o.degree > coalesce(a.degree, 0)
  RETURN count(o) AS counted
}
WITH a, s, outTypes, inTypes, counted, coalesce(s.knowledgePointDegrees, []) AS degrees
RETURN outTypes, inTypes,
       1 + counted + reduce(n = 0, i IN range(0, size(degrees) - 1) |
         n + CASE WHEN degrees[i] > coalesce(a.degree, 0)
                  THEN s.knowledgePointsPerDegree[i] ELSE 0 END) AS centralityRank
