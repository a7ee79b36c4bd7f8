// mode: read
// The readable scopes that hold a knowledge point with this id ($scopes null: every scope).
// :param id => 'waterglass'
// :param scopes => ['waterglass']
MATCH (k:KnowledgePoint {id: $id})
WHERE $scopes IS NULL OR k.scope IN $scopes
RETURN k.scope AS scope
ORDER BY scope
