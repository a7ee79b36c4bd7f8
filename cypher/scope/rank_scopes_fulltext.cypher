// mode: read
// returns: scope, bestScore
// Pre-ranking of a question without a scope when cosines cannot rank enough scopes (no question
// embedding, or scopes without embeddings): for each of $scopes (the caller's readable scopes;
// no other scope is returned), the best BM25 score of its paragraphs among the $candidates best
// matches of the shared full-text index, best first. The shared index scores every scope with
// the same (whole-index) statistics, so the scores compare across scopes. $lucene is built by
// the service from the question's terms, every term escaped, and requires the scopes' keys
// (+scopeKey:(s… s…)) while they fit Lucene's clause limit; the WHERE keeps only $scopes always.
// :param lucene => '+scopeKey:(s0123456789abcdef sfedcba9876543210) +(prism alignment)'
// :param scopes => ['opticalbench', 'kitchen']
// :param candidates => 4000
CALL db.index.fulltext.queryNodes('paragraph_search', $lucene, {limit: $candidates})
YIELD node, score
WHERE node.scope IN $scopes
RETURN node.scope AS scope, max(score) AS bestScore
ORDER BY bestScore DESC, scope
