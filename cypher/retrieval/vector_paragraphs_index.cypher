// mode: read
// returns: paragraphId, documentId, score
// Dense channel for large scopes: the HNSW vector index, oversampled ($candidates > $limit)
// because Neo4j 5.26 applies the scope filter after the index's top-k.
// :param indexName => 'paragraph_embedding'   (the active model's shared index)
// :param vector => [0.1, ...]
// :param candidates => 160
// :param scope => 'waterglass'
// :param limit => 40
CALL db.index.vector.queryNodes($indexName, $candidates, $vector)
YIELD node, score
WHERE node.scope = $scope
RETURN node.id AS paragraphId, node.documentId AS documentId, score
LIMIT $limit
