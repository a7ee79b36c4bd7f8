// mode: read
// A document's versions, newest first, without their text (GET /v1/documents/{id}/versions).
// :param id => 'd_...'
MATCH (d:Document {id: $id})-[:HAS_VERSION]->(v:DocumentVersion)
RETURN v.version AS version, v.contentHash AS contentHash, v.createdAt AS createdAt,
       v.paragraphs AS paragraphs, v.headings AS headings, v.version = d.version AS head,
       COUNT { (:AnswerRecord)-[:CITED_DOCUMENT {version: v.version}]->(d) } AS citedBy
ORDER BY v.version DESC
