// mode: write
// Deletes the document's headings and paragraphs that the new version no longer has, and all
// of its structural relationships (they are recreated from the new version's rows).
CALL {
  MATCH (h:Heading {documentId: $documentId})
  WHERE NOT h.id IN $headingIds
  DETACH DELETE h
}
CALL {
  MATCH (p:Paragraph {documentId: $documentId})
  WHERE NOT p.id IN $paragraphIds
  DETACH DELETE p
}
CALL {
  MATCH (:Document {id: $documentId})-[r:HAS_HEADING|HAS_PARAGRAPH]->()
  DELETE r
}
CALL {
  MATCH (:Heading {documentId: $documentId})-[r:HAS_SUBHEADING|HAS_PARAGRAPH]->()
  DELETE r
}
CALL {
  MATCH (:Paragraph {documentId: $documentId})-[r:NEXT]->()
  DELETE r
}
