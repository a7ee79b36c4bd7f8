// mode: write
// Knowledge points stay only while a document still describes or declares them.
MATCH (k:KnowledgePoint {scope: $scope})
WHERE NOT EXISTS { (k)-[:DESCRIBED_IN|DECLARED_IN]->(:Document) }
DETACH DELETE k
RETURN count(*) AS pruned
