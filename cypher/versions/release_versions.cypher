// mode: write
// Deletes up to $batch versions that retention releases (the rules of retention_census.cypher,
// checked again here, in the deleting transaction); the caller repeats until it releases 0.
// :param scope => null
// :param keepLast => 10
// :param cutoffMs => 0
// :param batch => 1000
MATCH (d:Document)-[:HAS_VERSION]->(v:DocumentVersion)
WHERE ($scope IS NULL OR d.scope = $scope)
  AND v.version <> d.version
  AND v.version <= d.version - $keepLast
  AND v.createdAtMs < $cutoffMs
  AND NOT EXISTS { (:AnswerRecord)-[:CITED_DOCUMENT {version: v.version}]->(d) }
WITH v LIMIT $batch
DETACH DELETE v
RETURN count(*) AS released
