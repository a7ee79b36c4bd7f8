// mode: read
// A knowledge point with its degree by relation type and direction, and the documents that
// describe (or only declare) it. Relations never cross scopes: both ends carry $scope.
// :param scope => 'waterglass'
// :param id => 'waterglass'
MATCH (k:KnowledgePoint {scope: $scope, id: $id})
CALL (k) {
  OPTIONAL MATCH (k)-[r]->(:KnowledgePoint {scope: $scope})
  WITH type(r) AS type, count(r) AS n WHERE type IS NOT NULL
  RETURN collect({type: type, count: n}) AS outgoing
}
CALL (k) {
  OPTIONAL MATCH (k)<-[r]-(:KnowledgePoint {scope: $scope})
  WITH type(r) AS type, count(r) AS n WHERE type IS NOT NULL
  RETURN collect({type: type, count: n}) AS incoming
}
CALL (k) {
  OPTIONAL MATCH (k)-[link:DESCRIBED_IN|DECLARED_IN]->(d:Document {scope: $scope})
  WITH link, d WHERE d IS NOT NULL
  RETURN collect({id: d.id, path: d.path, title: d.title, link: type(link)}) AS documents
}
RETURN k.id AS id, k.scope AS scope, k.title AS title, k.aliases AS aliases, k.kind AS kind,
       k.summary AS summary, coalesce(k.stub, false) AS stub, outgoing, incoming, documents
