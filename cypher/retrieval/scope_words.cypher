// mode: read
// returns: tokens
// Paragraphs of a scope holding words near the question's terms (fuzzy clauses, one edit away)
// or sharing their stems (prefix clauses), with their stored tokens: the typing slips and the
// other word forms of service/pipeline/scope_words.py are read off them. The shared index
// serves every scope; the scope is also a required clause of $lucene.
// :param scope => 'waterglass'
// :param lucene => '+scopeKey:s0123456789abcdef +(decsale~1 balance~1 descal* balanc*)'
// :param limit => 200
CALL db.index.fulltext.queryNodes('paragraph_search', $lucene, {limit: $limit})
YIELD node
WHERE node.scope = $scope
RETURN coalesce(node.textTokens, '') + ' ' + coalesce(node.headingTokens, '') AS tokens
