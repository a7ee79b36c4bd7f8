// mode: write
// After a scope's writes: every knowledge point's relation count, and the scope's degree
// histogram on its Scope node (distinct degrees, highest first, and how many points have each),
// so an anchor's centrality rank at question time sums a short list instead of counting the
// points above it (tens of thousands in a million-paragraph scope). Writes only what changed.
// :param scope => 'graphintent'
MATCH (k:KnowledgePoint {scope: $scope})
WITH k, COUNT { (k)--(:KnowledgePoint) } AS degree
WITH k, degree, k.degree IS NULL OR k.degree <> degree AS changed
FOREACH (_ IN CASE WHEN changed THEN [1] ELSE [] END | SET k.degree = degree)
WITH degree, count(k) AS points, sum(CASE WHEN changed THEN 1 ELSE 0 END) AS updated
ORDER BY degree DESC
WITH collect(degree) AS degrees, collect(points) AS counts, sum(updated) AS updated
MERGE (s:Scope {scope: $scope})
WITH s, degrees, counts, updated
FOREACH (_ IN CASE WHEN s.knowledgePointDegrees = degrees
                    AND s.knowledgePointsPerDegree = counts THEN [] ELSE [1] END |
  SET s.knowledgePointDegrees = degrees, s.knowledgePointsPerDegree = counts)
RETURN updated
