// mode: read
// returns: tokens
// retrieval/scope_words for a large scope: the same fuzzy and prefix clauses asked of the
// scope's own full-text index (cypher/scope/paragraph_fulltext_index.cypher), which holds no
// other scope, so $lucene carries no scope clause. The shared index made Lucene walk every
// scope's postings of each fuzzy term before the scope clause cut them (10.7 ms p50 at 100k).
// :param indexName => 'paragraph_search_s0123456789abcdef'
// :param scope => 'bench-latency-100k'
// :param lucene => 'decsale^4 decsale~1 descal*'
// :param limit => 200
CALL db.index.fulltext.queryNodes($indexName, $lucene, {limit: $limit})
YIELD node
WHERE node.scope = $scope
RETURN coalesce(node.textTokens, '') + ' ' + coalesce(node.headingTokens, '') AS tokens
