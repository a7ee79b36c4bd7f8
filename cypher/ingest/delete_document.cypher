// mode: write
// Purges a document for good: its versions, headings, paragraphs, facts and the relations it
// declared, and its citation counts in the operations rollups (the answers stay counted);
// answer records that cited or used it become stale (they keep their own copy).
MATCH (d:Document {id: $documentId})
CALL (d) {
  MATCH (r:AnswerRecord)-[:CITED_DOCUMENT]->(d)
  WHERE r.staleAt IS NULL
  SET r.staleAt = toString(datetime()), r.staleReason = 'document removed'
}
CALL (d) {
  UNWIND d.relationSources AS sourceId
  MATCH (:KnowledgePoint {scope: d.scope, id: sourceId})-[r]->(:KnowledgePoint)
  WHERE r.sourceDocumentId = d.id
  DELETE r
}
CALL (d) {
  // written before documents recorded their sources: the whole scope is searched, once
  UNWIND CASE WHEN d.relationSources IS NULL THEN [d.scope] ELSE [] END AS legacyScope
  MATCH (:KnowledgePoint {scope: legacyScope})-[r]->(:KnowledgePoint)
  WHERE r.sourceDocumentId = d.id
  DELETE r
}
CALL (d) {
  MATCH (f:Fact {documentId: d.id})  // the current facts and those of every kept version
  DETACH DELETE f
}
CALL (d) {
  MATCH (p:Paragraph {documentId: d.id})
  DETACH DELETE p
}
CALL (d) {
  MATCH (h:Heading {documentId: d.id})
  DETACH DELETE h
}
CALL (d) {
  MATCH (c:OpsCitedDay {documentId: d.id})
  DELETE c
}
CALL (d) {
  MATCH (d)-[:HAS_VERSION]->(v)  // kept versions and the tombstones of released ones
  DETACH DELETE v
}
DETACH DELETE d
