// mode: schema
// Never-cited documents: a document's citations in a window, found from the document.
CREATE INDEX ops_cited_document IF NOT EXISTS
FOR (c:OpsCitedDay) ON (c.documentId)
