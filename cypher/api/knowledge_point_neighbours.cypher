// mode: read
// A knowledge point's typed relations in both directions, strongest first, inside its scope,
// with confidence, provenance and the paragraph/document that declared each relation.
// :param scope => 'waterglass'
// :param id => 'waterglass'
// :param limit => 200
MATCH (k:KnowledgePoint {scope: $scope, id: $id})-[r]-(other:KnowledgePoint {scope: $scope})
RETURN CASE WHEN startNode(r) = k THEN 'out' ELSE 'in' END AS direction,
       type(r) AS type, other.id AS id, other.title AS title,
       r.confidence AS confidence, r.provenance AS provenance,
       r.sourceParagraphId AS sourceParagraphId, r.sourceDocumentId AS sourceDocumentId,
       r.sourceLine AS sourceLine
ORDER BY r.confidence DESC, type, id
LIMIT $limit
