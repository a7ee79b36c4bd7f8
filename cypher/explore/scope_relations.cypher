:param scope => 'waterglass';
// mode: read
// Every relation of a scope, for checks and for a quick overview.
MATCH (s:KnowledgePoint {scope: $scope})-[r]->(t:KnowledgePoint)
RETURN s.id AS source, type(r) AS type, t.id AS target, r.confidence AS confidence,
       r.provenance AS provenance, r.sourceParagraphId AS sourceParagraphId,
       r.sourceLine AS sourceLine
ORDER BY source, type, target, provenance
