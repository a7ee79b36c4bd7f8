// mode: write
// lock_document for a change to an existing document (withdraw, purge): no row when it is gone.
// :param documentId => 'd_...'
MATCH (d:Document {id: $documentId})
SET d.lockedAt = timestamp()
RETURN d.version AS version, d.status AS status, d.contentHash AS contentHash,
       d.unitHash AS unitHash, d.embeddingStatus AS embeddingStatus,
       EXISTS { (d)-[:HAS_VERSION]->(:DocumentVersion {version: d.version}) } AS hasVersion,
       d.scope AS scope, d.path AS path
