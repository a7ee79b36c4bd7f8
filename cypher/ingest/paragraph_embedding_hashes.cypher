// mode: read
// Paragraphs that already carry a vector for the same text and model are not embedded again.
UNWIND $documentIds AS documentId
MATCH (p:Paragraph {documentId: documentId})
WHERE p.embedding IS NOT NULL
RETURN p.id AS id, p.embeddingHash AS embeddingHash
