// mode: write
// One answer record, linked to the paragraphs its citations quote (CITED) and those its context
// pack used (USED), found by source offsets inside each document, and to those documents with
// the version and content hash they had (CITED_DOCUMENT): a later change of that content marks
// the record stale (cypher/ingest/upsert_document.cypher). A stored record is left as it is.
// :param record => {id: 't_0123456789abcdef', replayId: 'rcp_...', scope: 'waterglass', ...}
// :param cited => [{documentId: 'd_...', startOffset: 10, endOffset: 80}]
// :param used => [{documentId: 'd_...', startOffset: 0, endOffset: 400, role: 'direct_support'}]
MERGE (r:AnswerRecord {id: $record.id})
ON CREATE SET r += $record
WITH r
CALL (r) {
  UNWIND $cited AS span
  MATCH (p:Paragraph {documentId: span.documentId})
  WHERE p.startOffset <= span.startOffset AND p.endOffset >= span.endOffset
  MERGE (r)-[:CITED]->(p)
  RETURN count(*) AS cited
}
CALL (r) {
  UNWIND $used AS span
  MATCH (p:Paragraph {documentId: span.documentId})
  WHERE p.startOffset < span.endOffset AND p.endOffset > span.startOffset
  MERGE (r)-[u:USED]->(p)
  ON CREATE SET u.roles = [span.role]
  ON MATCH SET u.roles = CASE WHEN span.role IN u.roles THEN u.roles
                              ELSE u.roles + span.role END
  RETURN count(*) AS used
}
CALL (r) {
  UNWIND [span IN $cited + $used | span.documentId] AS documentId
  WITH DISTINCT documentId
  MATCH (d:Document {id: documentId})
  MERGE (r)-[c:CITED_DOCUMENT]->(d)
  ON CREATE SET c.contentHash = d.contentHash, c.version = d.version
}
RETURN cited, used
