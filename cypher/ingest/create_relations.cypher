// mode: write
// Typed relations between knowledge points. The type comes from the allowlist only (checked in
// Python and again here). A knowledge point whose document is not written yet becomes a stub.
// The document records the ids of its relations' source points (relationSources), so removing
// them later starts from those points instead of every knowledge point of the scope
// (ingest/clear_document_knowledge). It also keeps every relation it declared as text
// (`declaredRelations`: source, type, target, line and paragraph, joined by U+001F), those
// to a point the scope does not know included (they are not written): the health report
// lists them from there (cypher/health/dangling_relations.cypher).
// :param declared => ['waterglass\u001fCONTRASTS_WITH\u001fplastic-cup\u001f7\u001f']
// :param documentId => 'd_...'
// :param scope => 'waterglass'
// :param sources => ['waterglass']
MATCH (d:Document {id: $documentId})
SET d.relationSources = $sources, d.declaredRelations = $declared
WITH d
UNWIND $rows AS row
WITH row WHERE row.type IN $relationTypes
MERGE (s:KnowledgePoint {scope: $scope, id: row.source})
  ON CREATE SET s.title = row.source, s.aliases = [], s.aliasText = '', s.stub = true
MERGE (t:KnowledgePoint {scope: $scope, id: row.target})
  ON CREATE SET t.title = row.target, t.aliases = [], t.aliasText = '', t.stub = true
CREATE (s)-[r:$(row.type)]->(t)
SET r.confidence = row.confidence,
    r.provenance = row.provenance,
    r.sourceParagraphId = row.sourceParagraphId,
    r.sourceLine = row.sourceLine,
    r.sourceDocumentId = $documentId
