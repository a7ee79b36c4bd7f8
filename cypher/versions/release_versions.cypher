// mode: write
// Releases up to $batch versions that retention allows (the rules of retention_census.cypher,
// checked again here, in the releasing transaction); the caller repeats until it releases 0.
// A released version keeps a tombstone: the node loses its text and structure and becomes a
// ReleasedVersion with its number and when it was released, so `?version=N` can answer
// "expired" (410) rather than "never existed" (404). Its facts go with its text. Purging the
// document removes the tombstone too.
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
CALL (v) {
  MATCH (f:Fact {documentId: v.documentId, version: v.version})
  DETACH DELETE f
}
REMOVE v:DocumentVersion, v.source, v.structure, v.original
SET v:ReleasedVersion, v.releasedAt = toString(datetime()), v.releasedAtMs = timestamp()
RETURN count(*) AS released
