// mode: read
// Embedded paragraphs of the scope: decides whether the scope gets its own vector index.
// :param scope => 'bench-latency-10k'
MATCH (p:Paragraph {scope: $scope})
WHERE p.embedding IS NOT NULL
RETURN count(p) AS paragraphs
