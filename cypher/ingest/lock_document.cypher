// mode: write
// First statement of every change to a document. Setting lockedAt takes the document's write
// lock, held until commit: concurrent editors of one document queue here, and each then reads
// the head its predecessor committed (ingest/versions.py decides from it). A new document's
// node is created at version 0, declaring no relations yet (relationSources, see
// ingest/create_relations); a transaction that gives up rolls it back.
// :param documentId => 'd_...'
// :param scope => 'waterglass'
// :param path => 'waterglass/waterglass.md'
MERGE (d:Document {id: $documentId})
ON CREATE SET d.version = 0, d.status = 'new', d.scope = $scope, d.path = $path,
              d.relationSources = []
SET d.lockedAt = timestamp()
RETURN d.version AS version, d.status AS status, d.contentHash AS contentHash,
       d.unitHash AS unitHash, d.embeddingStatus AS embeddingStatus,
       EXISTS { (d)-[:HAS_VERSION]->(:DocumentVersion {version: d.version}) } AS hasVersion
