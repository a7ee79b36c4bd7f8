// mode: write
// Top-level headings hang off the document, the others off their parent heading.
MATCH (d:Document {id: $documentId})
UNWIND $rows AS row
MATCH (h:Heading {id: row.id})
OPTIONAL MATCH (parent:Heading {id: row.parentId})
WITH d, h, parent
CALL (d, h, parent) {
  WITH d, h, parent WHERE parent IS NULL
  CREATE (d)-[:HAS_HEADING]->(h)
}
CALL (h, parent) {
  WITH h, parent WHERE parent IS NOT NULL
  CREATE (parent)-[:HAS_SUBHEADING]->(h)
}
