// mode: read
// How much of each kind a scope holds.
// :param scope => 'waterglass'
CALL {
  MATCH (d:Document {scope: $scope}) RETURN 'Document' AS label, count(d) AS nodes
  UNION ALL
  MATCH (h:Heading {scope: $scope}) RETURN 'Heading' AS label, count(h) AS nodes
  UNION ALL
  MATCH (p:Paragraph {scope: $scope}) RETURN 'Paragraph' AS label, count(p) AS nodes
  UNION ALL
  MATCH (k:KnowledgePoint {scope: $scope}) RETURN 'KnowledgePoint' AS label, count(k) AS nodes
}
RETURN label, nodes
