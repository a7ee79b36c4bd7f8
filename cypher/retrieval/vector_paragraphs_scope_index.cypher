// mode: read
// returns: paragraphId, documentId, score
// Dense channel for large scopes with their own vector index (see cypher/scope/): the HNSW
// search over this scope's paragraphs only, so no oversampling is needed.
// :param indexName => 'paragraph_embedding_s0123456789abcdef'
// :param vector => [0.1, ...]   (the question's embedding by the active model)
// :param scope => 'bench-latency-10k'
// :param limit => 40
CALL db.index.vector.queryNodes($indexName, $limit, $vector)
YIELD node, score
WHERE node.scope = $scope
RETURN node.id AS paragraphId, node.documentId AS documentId, score
