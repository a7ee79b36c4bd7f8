// mode: read
// Paragraphs in a scope: decides exact versus index vector search.
// :param scope => 'waterglass'
MATCH (p:Paragraph {scope: $scope})
RETURN count(p) AS paragraphs
