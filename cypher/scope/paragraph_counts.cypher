// mode: read
// Paragraphs of the scope, all and embedded: decide whether the scope gets its own full-text
// index (all) and its own vector index (embedded).
// :param scope => 'bench-latency-10k'
// :param property => 'embedding'   (the active model's paragraph property)
MATCH (p:Paragraph {scope: $scope})
RETURN count(p) AS paragraphs, count(p[$property]) AS embedded
