// mode: write
// Remove up to $batch vectors of a retired model; the caller repeats until none is left.
// :param property => 'embedding_m0123abcd'
// :param batch => 10000
MATCH (p:Paragraph)
WHERE p[$property] IS NOT NULL
WITH p LIMIT $batch
SET p[$property] = null
RETURN count(p) AS cleared
