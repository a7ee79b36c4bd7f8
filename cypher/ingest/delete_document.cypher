// mode: write
// Removes a document with its headings, paragraphs and the relations it declared; answer records
// that cited or used it become stale.
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
DETACH DELETE d
