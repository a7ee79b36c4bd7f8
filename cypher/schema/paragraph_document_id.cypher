// mode: schema
// Reading a complete document (the maximum source boundary) and replacing one as a unit.
CREATE INDEX paragraph_document_id IF NOT EXISTS
FOR (p:Paragraph) ON (p.documentId)
