// mode: read
// returns: id, title, aliases, documentId, path, score
// Knowledge points whose names share a word (or a compact name form) with the question; the
// service then keeps those whose whole name occurs in the question. Equal scores order by id:
// Lucene breaks ties by its internal document order, which other scopes' writes reshuffle.
// :param lucene => '+scopeKey:s0123456789abcdef +(waterglass "water glass")'
// :param scope => 'waterglass'
// :param limit => 50
CALL db.index.fulltext.queryNodes('knowledge_point_search', $lucene, {limit: $limit})
YIELD node, score
WHERE node.scope = $scope
OPTIONAL MATCH (node)-[:DESCRIBED_IN]->(d:Document)
RETURN node.id AS id, node.title AS title, node.aliases AS aliases, d.id AS documentId,
       d.path AS path, score
ORDER BY score DESC, id
