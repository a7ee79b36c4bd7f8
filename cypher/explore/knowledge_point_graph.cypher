:param scope => 'waterglass';
:param id => 'waterglass';
// mode: read
// The same neighbourhood as a picture for Neo4j Browser, with the documents behind it.
MATCH (k:KnowledgePoint {scope: $scope, id: $id})
OPTIONAL MATCH related = (k)-[r]-(:KnowledgePoint)
OPTIONAL MATCH described = (k)-[:DESCRIBED_IN]->(:Document)
RETURN k, related, described
