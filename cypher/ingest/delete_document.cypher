// mode: write
// Removes a document with its headings, paragraphs and the relations it declared.
MATCH (d:Document {id: $documentId})
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
