// mode: write
// Retention by age: up to $batch records created before $before (epoch ms), oldest first.
// :param before => 1764547200000
// :param batch => 5000
MATCH (r:AnswerRecord)
WHERE r.createdAtMs < $before
WITH r ORDER BY r.createdAtMs LIMIT $batch
DETACH DELETE r
RETURN count(*) AS deleted
