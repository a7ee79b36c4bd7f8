// mode: read
// returns: titles, relations, confidences
// Shortest relation paths (up to 3 hops) between two compare operands, with each hop's type
// and confidence, for ranking by the same intent policy as the windows.
// :param scope => 'waterglass'
// :param source => 'waterglass'
// :param target => 'plastic-cup'
MATCH (a:KnowledgePoint {scope: $scope, id: $source}), (b:KnowledgePoint {scope: $scope, id: $target})
MATCH path = allShortestPaths((a)-[*..3]-(b))
WHERE all(n IN nodes(path) WHERE n:KnowledgePoint)
RETURN [n IN nodes(path) | n.title] AS titles,
       [r IN relationships(path) | type(r)] AS relations,
       [r IN relationships(path) | r.confidence] AS confidences
LIMIT 10
