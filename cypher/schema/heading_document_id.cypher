// mode: schema
CREATE INDEX heading_document_id IF NOT EXISTS
FOR (h:Heading) ON (h.documentId)
