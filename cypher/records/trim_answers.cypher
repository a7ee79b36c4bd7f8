// mode: write
// Retention by count: up to $batch records beyond the newest $keep.
// :param keep => 100000
// :param batch => 5000
MATCH (r:AnswerRecord)
WHERE r.createdAtMs IS NOT NULL
WITH r ORDER BY r.createdAtMs DESC SKIP $keep LIMIT $batch
DETACH DELETE r
RETURN count(*) AS deleted
