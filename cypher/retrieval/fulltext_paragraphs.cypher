// mode: read
// returns: paragraphId, documentId, score
// Full-text channel: BM25 ranking inside one scope. $lucene is built by the service from the
// question's terms, every term escaped, and starts with +scopeKey:<token of $scope>.
// :param lucene => '+scopeKey:s0123456789abcdef +(waterglass)'
// :param scope => 'waterglass'
// :param limit => 40
CALL db.index.fulltext.queryNodes('paragraph_search', $lucene, {limit: $limit})
YIELD node, score
WHERE node.scope = $scope
RETURN node.id AS paragraphId, node.documentId AS documentId, score
