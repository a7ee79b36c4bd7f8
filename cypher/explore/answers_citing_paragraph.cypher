:param paragraphId => 'p_0123456789abcdef';
// mode: read
// returns: id, createdAt, status, query, stale
// Which answers cited this paragraph? Newest first.
MATCH (r:AnswerRecord)-[:CITED]->(:Paragraph {id: $paragraphId})
RETURN r.id AS id, r.createdAt AS createdAt, r.status AS status, r.query AS query,
       r.staleAt IS NOT NULL AS stale
ORDER BY r.createdAtMs DESC
LIMIT 100
