// mode: read
// Paragraphs in the scope and in the whole database: choose exact or index vector search, and
// how far to oversample the index (cached for a minute by the service; only a heuristic).
// :param scope => 'waterglass'
CALL {
  MATCH (p:Paragraph {scope: $scope})
  RETURN count(p) AS scopeParagraphs
}
CALL {
  MATCH (p:Paragraph)
  RETURN count(p) AS allParagraphs
}
RETURN scopeParagraphs, allParagraphs
