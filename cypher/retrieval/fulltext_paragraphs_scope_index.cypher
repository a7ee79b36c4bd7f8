// mode: read
// returns: paragraphId, documentId, score
// Full-text channel of a large scope: Lucene BM25 in the scope's own full-text index (see
// cypher/scope/), whose statistics are this scope's alone. $lucene holds the question's clauses
// only, every term escaped by the service (the index holds no other scope).
// :param indexName => 'paragraph_search_s0123456789abcdef'
// :param lucene => 'waterglass "water glass"'
// :param scope => 'bench-latency-10k'
// :param limit => 40
CALL db.index.fulltext.queryNodes($indexName, $lucene, {limit: $limit})
YIELD node, score
WHERE node.scope = $scope
RETURN node.id AS paragraphId, node.documentId AS documentId, score
