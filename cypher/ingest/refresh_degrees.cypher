// mode: write
// After a scope's writes: every knowledge point's relation count, so the centrality rank of an
// anchor is one indexed count at question time instead of a pass over the whole scope.
MATCH (k:KnowledgePoint {scope: $scope})
WITH k, COUNT { (k)--(:KnowledgePoint) } AS degree
WHERE k.degree IS NULL OR k.degree <> degree
SET k.degree = degree
RETURN count(k) AS updated
