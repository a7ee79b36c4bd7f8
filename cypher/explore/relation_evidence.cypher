:param scope => 'waterglass';
:param source => 'waterglass';
:param target => 'plastic-cup';
// mode: read
// The paragraph behind each relation between two knowledge points (null for front matter).
MATCH (s:KnowledgePoint {scope: $scope, id: $source})-[r]->(t:KnowledgePoint {scope: $scope, id: $target})
OPTIONAL MATCH (d:Document {id: r.sourceDocumentId})
OPTIONAL MATCH (p:Paragraph {id: r.sourceParagraphId})
RETURN type(r) AS type, r.confidence AS confidence, r.provenance AS provenance,
       d.path AS declaredIn, r.sourceLine AS line, p.text AS paragraph
ORDER BY type, provenance
