// mode: read
// Paragraphs in the scope (and how many carry the scope's label, which its own indexes cover)
// and in the whole database: choose exact, own-index or shared-index search, and how far to
// oversample the shared index (cached for a minute by the service; only a heuristic).
// :param scope => 'waterglass'
// :param label => 'Scope_s0123456789abcdef'
CALL {
  MATCH (p:Paragraph {scope: $scope})
  RETURN count(p) AS scopeParagraphs, count(CASE WHEN $label IN labels(p) THEN 1 END) AS labelled
}
CALL {
  MATCH (p:Paragraph)
  RETURN count(p) AS allParagraphs
}
RETURN scopeParagraphs, labelled, allParagraphs
