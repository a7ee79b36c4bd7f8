// mode: read
// The anchor's in- and out-degree by relation type, and its rank by total degree in the scope.
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
  MATCH (k:KnowledgePoint {scope: a.scope})
  WITH k, COUNT { (k)--(:KnowledgePoint) } AS degree
  WITH collect(degree) AS degrees
  RETURN size([d IN degrees WHERE d > COUNT { (a)--(:KnowledgePoint) }]) + 1 AS centralityRank,
         size(degrees) AS scopeSize
}
RETURN outTypes, inTypes, centralityRank, scopeSize
