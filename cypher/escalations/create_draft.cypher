// mode: write
// A pending escalation draft, owned by the key that made it, linked to the paragraphs its
// evidence quotes (found by source offsets inside each document, as answer records are). The
// content is the exact JSON the preview returned; confirmation compares its hash.
// :param draft => {id: 'esc_0123456789abcdef', keyName: 'support', scope: 'kitchen', ...}
// :param spans => [{documentId: 'd_...', startOffset: 10, endOffset: 80}]
CREATE (d:EscalationDraft)
SET d = $draft, d.status = 'pending'
WITH d
CALL (d) {
  UNWIND $spans AS span
  MATCH (p:Paragraph {documentId: span.documentId})
  WHERE p.startOffset <= span.startOffset AND p.endOffset >= span.endOffset
  MERGE (d)-[:CITES]->(p)
}
RETURN d.id AS id
