// mode: write
// HAS_PARAGRAPH from the enclosing heading (or the document, before the first heading) and the
// NEXT chain in reading order.
MATCH (d:Document {id: $documentId})
UNWIND $rows AS row
MATCH (p:Paragraph {id: row.id})
OPTIONAL MATCH (h:Heading {id: row.headingId})
CALL (d, h, p) {
  WITH d, h, p WHERE h IS NULL
  CREATE (d)-[:HAS_PARAGRAPH]->(p)
}
CALL (h, p) {
  WITH h, p WHERE h IS NOT NULL
  CREATE (h)-[:HAS_PARAGRAPH]->(p)
}
CALL (p, row) {
  WITH p, row WHERE row.previousId IS NOT NULL
  MATCH (previous:Paragraph {id: row.previousId})
  CREATE (previous)-[:NEXT]->(p)
}
