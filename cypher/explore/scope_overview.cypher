:param scope => 'waterglass';
// mode: read
// How much of each kind a scope holds (a row per label, zeros included).
CALL {
  MATCH (d:Document {scope: $scope}) WITH count(d) AS nodes RETURN 'Document' AS label, nodes
  UNION ALL
  MATCH (h:Heading {scope: $scope}) WITH count(h) AS nodes RETURN 'Heading' AS label, nodes
  UNION ALL
  MATCH (p:Paragraph {scope: $scope}) WITH count(p) AS nodes RETURN 'Paragraph' AS label, nodes
  UNION ALL
  MATCH (k:KnowledgePoint {scope: $scope}) WITH count(k) AS nodes RETURN 'KnowledgePoint' AS label, nodes
  UNION ALL
  MATCH (f:Fact {scope: $scope}) WITH count(f) AS nodes RETURN 'Fact' AS label, nodes
}
RETURN label, nodes
