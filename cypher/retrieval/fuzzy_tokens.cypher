// mode: read
// returns: tokens
// Paragraphs of a scope holding words near the question's terms (Lucene fuzzy clauses, one edit
// away), with their stored tokens: service/pipeline/spelling.py reads typing slips off them. The
// shared index serves every scope; the scope is also a required clause of $lucene.
// :param scope => 'waterglass'
// :param lucene => '+scopeKey:s0123456789abcdef +(decsale~1 brurs~1)'
// :param limit => 200
CALL db.index.fulltext.queryNodes('paragraph_search', $lucene, {limit: $limit})
YIELD node
WHERE node.scope = $scope
RETURN coalesce(node.textTokens, '') + ' ' + coalesce(node.headingTokens, '') AS tokens
