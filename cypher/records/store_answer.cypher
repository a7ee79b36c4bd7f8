// mode: write
// One answer record, linked to the paragraphs its citations quote (CITED) and those its context
// pack used (USED), found by source offsets inside each document, and to those documents with
// the version its citations quote and that version's content hash (CITED_DOCUMENT): retention
// keeps that version, and a later change of the content marks the record stale
// (cypher/ingest/upsert_document.cypher). The record is written after the answer: one whose
// document moved on in between is stale at once. A stored record is left as it is; `fresh`
// says whether this call created it (the operations rollups count a record once).
// :param record => {id: 't_0123456789abcdef', replayId: 'rcp_...', scope: 'waterglass', ...}
// :param cited => [{documentId: 'd_...', startOffset: 10, endOffset: 80, version: 1}]
// :param used => [{documentId: 'd_...', startOffset: 0, endOffset: 400, role: 'direct_support'}]
OPTIONAL MATCH (known:AnswerRecord {id: $record.id})
WITH known IS NULL AS fresh
MERGE (r:AnswerRecord {id: $record.id})
ON CREATE SET r += $record
WITH r, fresh
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
  UNWIND $cited + $used AS span
  WITH span.documentId AS documentId, max(span.version) AS quoted
  MATCH (d:Document {id: documentId})
  WITH d, coalesce(quoted, d.version) AS version
  OPTIONAL MATCH (d)-[:HAS_VERSION]->(v:DocumentVersion {version: version})
  MERGE (r)-[c:CITED_DOCUMENT]->(d)
  ON CREATE SET c.version = version, c.contentHash = coalesce(v.contentHash, d.contentHash)
  WITH r, d, version WHERE version <> d.version AND r.staleAt IS NULL
  SET r.staleAt = toString(datetime()), r.staleReason = 'document changed'
}
RETURN cited, used, fresh
