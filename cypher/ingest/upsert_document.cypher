// mode: write
// First statement of a document's replacement transaction; version counts rewrites. Answer
// records that cited or used the document's earlier content become stale (service/records/).
MERGE (d:Document {id: $document.id})
ON CREATE SET d.version = 0
WITH d
CALL (d) {
  MATCH (r:AnswerRecord)-[c:CITED_DOCUMENT]->(d)
  WHERE c.contentHash <> $document.contentHash AND r.staleAt IS NULL
  SET r.staleAt = toString(datetime()), r.staleReason = 'document changed'
}
SET d += $document,
    d.version = d.version + 1,
    d.unitHash = $unitHash,
    d.embeddingStatus = $embeddingStatus,
    d.ingestedAt = toString(datetime())
