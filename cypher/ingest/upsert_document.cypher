// mode: write
// Sets the head's projection metadata after lock_document; $version is the head version the
// write decided (ingest/versions.py). Answer records that cited or used other content of the
// document become stale (service/records/).
MATCH (d:Document {id: $document.id})
CALL (d) {
  MATCH (r:AnswerRecord)-[c:CITED_DOCUMENT]->(d)
  WHERE c.contentHash <> $document.contentHash AND r.staleAt IS NULL
  SET r.staleAt = toString(datetime()), r.staleReason = 'document changed'
}
SET d += $document,
    d.version = $version,
    d.status = 'active',
    d.unitHash = $unitHash,
    d.embeddingStatus = $embeddingStatus,
    d.ingestedAt = toString(datetime())
