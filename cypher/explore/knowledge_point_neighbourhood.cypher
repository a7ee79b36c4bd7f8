:param scope => 'waterglass';
:param id => 'waterglass';
// mode: read
// A knowledge point's typed relations in both directions, with confidence and provenance.
MATCH (k:KnowledgePoint {scope: $scope, id: $id})-[r]-(other:KnowledgePoint)
RETURN CASE WHEN startNode(r) = k THEN 'out' ELSE 'in' END AS direction,
       type(r) AS type, other.id AS neighbour, other.title AS title,
       r.confidence AS confidence, r.provenance AS provenance,
       r.sourceParagraphId AS sourceParagraphId, r.sourceLine AS sourceLine
ORDER BY direction, type, confidence DESC
