// mode: read
// returns: tokens
// retrieval/scope_words for a large scope: the same fuzzy and prefix clauses asked of the
// scope's own full-text index (cypher/scope/paragraph_fulltext_index.cypher), which holds no
// other scope, so $lucene carries no scope clause and Lucene expands the fuzzy and prefix
// terms over this scope's words only.
// :param indexName => 'paragraph_search_s0123456789abcdef'
// :param scope => 'bench-latency-100k'
// :param lucene => 'decsale^4 decsale~1 descal*'
// :param limit => 200
CALL db.index.fulltext.queryNodes($indexName, $lucene, {limit: $limit})
YIELD node
WHERE node.scope = $scope
RETURN coalesce(node.textTokens, '') + ' ' + coalesce(node.headingTokens, '') AS tokens
