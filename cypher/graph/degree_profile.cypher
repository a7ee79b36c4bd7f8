// mode: read
// The anchor's in- and out-degree by relation type, and its rank by total degree in the scope
// (degrees are refreshed at the end of every ingest of the scope).
// :param scope => 'graphintent'
// :param id => 'glass-vessel'
MATCH (a:KnowledgePoint {scope: $scope, id: $id})
CALL (a) {
  OPTIONAL MATCH (a)-[r]->(:KnowledgePoint)
  RETURN collect(type(r)) AS outTypes
}
CALL (a) {
  OPTIONAL MATCH (a)<-[r]-(:KnowledgePoint)
  RETURN collect(type(r)) AS inTypes
}
CALL (a) {
  OPTIONAL MATCH (o:KnowledgePoint {scope: $scope})
  WHERE o.degree > coalesce(a.degree, 0)
  RETURN count(o) + 1 AS centralityRank
}
RETURN outTypes, inTypes, centralityRank
