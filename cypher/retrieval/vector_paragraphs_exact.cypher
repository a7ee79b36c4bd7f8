// mode: read
// returns: paragraphId, documentId, score
// Dense channel for small scopes: exact cosine over every paragraph of the scope (no recall
// loss from the approximate index, and the scope filter applies before ranking).
// :param scope => 'waterglass'
// :param vector => [0.1, ...]   (the question's 384-dimension embedding)
// :param limit => 40
MATCH (p:Paragraph {scope: $scope})
WHERE p.embedding IS NOT NULL
WITH p, vector.similarity.cosine(p.embedding, $vector) AS score
ORDER BY score DESC
LIMIT $limit
RETURN p.id AS paragraphId, p.documentId AS documentId, score
