:param scope => 'waterglass';
:param id => 'waterglass';
// mode: read
// returns: direction, relation, confidence, provenance, sourceParagraphId, id, title, aliases
// returns: kind, documentId, path
// Every typed relation of the anchor, both directions, with what ranking needs: type,
// confidence, provenance, and whether the neighbour has a source document to read.
MATCH (a:KnowledgePoint {scope: $scope, id: $id})-[r]-(n:KnowledgePoint)
WHERE n.scope = $scope
OPTIONAL MATCH (n)-[:DESCRIBED_IN]->(d:Document)
RETURN CASE WHEN startNode(r) = a THEN 'out' ELSE 'in' END AS direction,
       type(r) AS relation, r.confidence AS confidence, r.provenance AS provenance,
       r.sourceParagraphId AS sourceParagraphId,
       n.id AS id, n.title AS title, n.aliases AS aliases, n.kind AS kind,
       d.id AS documentId, d.path AS path
