// mode: read
// Knowledge points already in a scope (relation targets may live in documents not re-read now).
MATCH (k:KnowledgePoint {scope: $scope})
OPTIONAL MATCH (k)-[:DESCRIBED_IN]->(d:Document)
RETURN k.id AS id, k.title AS title, k.aliases AS aliases, collect(d.path) AS paths
