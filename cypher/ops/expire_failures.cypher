// mode: write
// Retention of failure records: up to $batch of those created before $beforeMs.
// :param beforeMs => 1730000000000
// :param batch => 5000
MATCH (f:RequestFailure)
WHERE f.createdAtMs < $beforeMs
WITH f LIMIT $batch
DELETE f
RETURN count(*) AS deleted
