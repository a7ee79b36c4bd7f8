// mode: write
// Takes a document out of every answer, keeping it and its versions: its headings, paragraphs,
// knowledge point links and the relations it declared go (restore rebuilds them from the head
// version's source); answer records that cited it become stale.
// :param documentId => 'd_...'
MATCH (d:Document {id: $documentId})
CALL (d) {
  MATCH (r:AnswerRecord)-[:CITED_DOCUMENT]->(d)
  WHERE r.staleAt IS NULL
  SET r.staleAt = toString(datetime()), r.staleReason = 'document withdrawn'
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
  MATCH (d)<-[r:DESCRIBED_IN|DECLARED_IN]-(:KnowledgePoint)
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
SET d.status = 'withdrawn', d.withdrawnAt = toString(datetime()), d.unitHash = null,
    d.relationSources = []
