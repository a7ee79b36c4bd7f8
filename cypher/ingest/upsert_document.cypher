// mode: write
// First statement of a document's replacement transaction; version counts rewrites.
MERGE (d:Document {id: $document.id})
ON CREATE SET d.version = 0
SET d += $document,
    d.version = d.version + 1,
    d.unitHash = $unitHash,
    d.embeddingStatus = $embeddingStatus,
    d.ingestedAt = toString(datetime())
