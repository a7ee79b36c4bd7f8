// mode: write
// Give up to $batch paragraphs of the scope the scope's label (the one its own full-text and
// vector indexes cover); the caller repeats until `labelled` is 0.
// :param scope => 'bench-latency-10k'
// :param label => 'Scope_s0123456789abcdef'
// :param batch => 10000
MATCH (p:Paragraph {scope: $scope})
WHERE NOT $label IN labels(p)
WITH p
LIMIT $batch
SET p:$($label)
RETURN count(p) AS labelled
