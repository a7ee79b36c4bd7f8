// mode: read
// Paragraphs that already carry a vector of the active model ($property) for the same text are
// not embedded again.
UNWIND $documentIds AS documentId
MATCH (p:Paragraph {documentId: documentId})
WHERE p[$property] IS NOT NULL
RETURN p.id AS id, p.embeddingHash AS embeddingHash
