:param documentId => 'd_0123456789abcdef';
// mode: read
// returns: id, createdAt, status, query, cited, used, stale
// Which answers does a change of this document affect? Every record that cited or used one of
// its paragraphs, newest first; stale: the document changed since the answer was given.
MATCH (r:AnswerRecord)-[:CITED_DOCUMENT]->(d:Document {id: $documentId})
RETURN r.id AS id, r.createdAt AS createdAt, r.status AS status, r.query AS query,
       COUNT { (r)-[:CITED]->(:Paragraph {documentId: d.id}) } AS cited,
       COUNT { (r)-[:USED]->(:Paragraph {documentId: d.id}) } AS used,
       r.staleAt IS NOT NULL AS stale
ORDER BY r.createdAtMs DESC
LIMIT 100
