// mode: read
// Every knowledge point of a scope with its names and describing document, for alias
// resolution (compact and spaced forms are matched in the service).
// :param scope => 'waterglass'
MATCH (k:KnowledgePoint {scope: $scope})
OPTIONAL MATCH (k)-[:DESCRIBED_IN]->(d:Document)
RETURN k.id AS id, k.title AS title, k.aliases AS aliases, k.kind AS kind,
       d.id AS documentId, d.path AS path
