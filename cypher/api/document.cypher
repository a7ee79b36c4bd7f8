// mode: read
// One document's metadata by id (the API checks its scope against the key's grant).
// :param id => 'd_...'
MATCH (d:Document {id: $id})
RETURN d.id AS id, d.scope AS scope, d.path AS path, d.title AS title, d.version AS version,
       d.contentHash AS contentHash, d.updated AS updated, d.validUntil AS validUntil,
       d.supersededBy AS supersededBy, d.ingestedAt AS ingestedAt,
       d.embeddingStatus AS embeddingStatus, coalesce(d.status, 'active') AS status,
       coalesce(d.mediaType, 'text/markdown') AS mediaType, d.originalHash AS originalHash,
       d.originalSize AS originalSize, d.pages AS pages,
       COUNT { (:Paragraph {documentId: d.id}) } AS paragraphs
