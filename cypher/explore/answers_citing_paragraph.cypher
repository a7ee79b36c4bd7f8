:param path => 'waterglass/waterglass.md';
:param ordinal => 0;
// mode: read
// returns: paragraphId, text, answers
// Which answers cited this paragraph (the document's paragraph at this reading position)? The
// newest hundred, each with its status, question and whether the document changed since.
MATCH (d:Document {path: $path})
MATCH (p:Paragraph {documentId: d.id, ordinal: $ordinal})
OPTIONAL MATCH (r:AnswerRecord)-[:CITED]->(p)
WITH p, r ORDER BY r.createdAtMs DESC
RETURN p.id AS paragraphId, p.text AS text,
       collect({id: r.id, createdAt: r.createdAt, status: r.status, query: r.query,
                stale: r.staleAt IS NOT NULL})[..100] AS answers
