// mode: read
// returns: id, scope, text
// Probe paragraphs of a model switch's audit: prose paragraphs in id order (ids are content
// hashes, so this is a fixed pseudo-random sample across scopes and documents).
// :param limit => 40
MATCH (p:Paragraph)
WHERE p.kind = 'paragraph'
WITH p ORDER BY p.id LIMIT $limit
RETURN p.id AS id, p.scope AS scope, p.text AS text
