// mode: read
// Knowledge points by name (title, aliases, compact name forms) through the full-text index,
// in the readable scopes ($scopes null: every scope; $lucene carries the same restriction).
// :param lucene => '+(waterglass)'
// :param scopes => ['waterglass']
// :param limit => 20
CALL db.index.fulltext.queryNodes('knowledge_point_search', $lucene, {limit: $limit})
YIELD node, score
WHERE $scopes IS NULL OR node.scope IN $scopes
RETURN node.id AS id, node.scope AS scope, node.title AS title, node.aliases AS aliases,
       node.kind AS kind, coalesce(node.stub, false) AS stub, score
ORDER BY score DESC, scope, id
