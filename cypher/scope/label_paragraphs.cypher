// mode: write
// Give up to $batch embedded paragraphs of the scope the scope's label (the one its vector
// index covers); the caller repeats until `labelled` is 0.
// :param scope => 'bench-latency-10k'
// :param label => 'Scope_s0123456789abcdef'
// :param batch => 10000
MATCH (p:Paragraph {scope: $scope})
WHERE p.embedding IS NOT NULL AND NOT $label IN labels(p)
WITH p
LIMIT $batch
SET p:$($label)
RETURN count(p) AS labelled
