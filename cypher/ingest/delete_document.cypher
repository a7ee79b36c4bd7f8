// mode: write
// Purges a document for good: its versions, headings, paragraphs and the relations it declared;
// answer records that cited or used it become stale (they keep their own copy of the answer).
MATCH (d:Document {id: $documentId})
CALL (d) {
  MATCH (r:AnswerRecord)-[:CITED_DOCUMENT]->(d)
  WHERE r.staleAt IS NULL
  SET r.staleAt = toString(datetime()), r.staleReason = 'document removed'
}
CALL (d) {
  MATCH (:KnowledgePoint {scope: d.scope})-[r]->(:KnowledgePoint)
  WHERE r.sourceDocumentId = d.id
  DELETE r
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
  MATCH (d)-[:HAS_VERSION]->(v:DocumentVersion)
  DETACH DELETE v
}
DETACH DELETE d
