// mode: read
// returns: paragraphId, documentId, score
// Dense channel for small scopes: exact cosine over every paragraph of the scope (no recall
// loss from the approximate index, and the scope filter applies before ranking).
// :param scope => 'waterglass'
// :param vector => [0.1, ...]   (the question's embedding by the active model)
// :param property => 'embedding'   (that model's paragraph property, service/embedding_space.py;
//   the service writes it in place of the token VectorProperty (service/db/cypher_registry.py))
// :param limit => 40
MATCH (p:Paragraph {scope: $scope})
WHERE p.VectorProperty IS NOT NULL
WITH p, vector.similarity.cosine(p.VectorProperty, $vector) AS score
ORDER BY score DESC
LIMIT $limit
RETURN p.id AS paragraphId, p.documentId AS documentId, score
