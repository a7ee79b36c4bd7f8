:param path => 'waterglass/waterglass.md';
// mode: read
// returns: documentId, path, answers
// Which answers does a change of this document affect? The newest hundred records that cited or
// used one of its paragraphs, with how many of its paragraphs each cited and used; stale: the
// document changed since the answer was given.
MATCH (d:Document {path: $path})
OPTIONAL MATCH (r:AnswerRecord)-[:CITED_DOCUMENT]->(d)
WITH d, r ORDER BY r.createdAtMs DESC
WITH d, collect(r)[..100] AS records
RETURN d.id AS documentId, d.path AS path,
       [r IN records | {
         id: r.id, createdAt: r.createdAt, status: r.status, query: r.query,
         cited: COUNT { (r)-[:CITED]->(:Paragraph {documentId: d.id}) },
         used: COUNT { (r)-[:USED]->(:Paragraph {documentId: d.id}) },
         stale: r.staleAt IS NOT NULL
       }] AS answers
