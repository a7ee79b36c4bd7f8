// mode: read
// What the graph holds for some documents of a scope (an upload, or an ingest without prune):
// the same rows as document_states, without reading the rest of a large scope.
// :param scope => 'waterglass'
// :param paths => ['waterglass/waterglass.md']
UNWIND $paths AS path
MATCH (d:Document {scope: $scope, path: path})
RETURN d.id AS id, d.path AS path, d.unitHash AS unitHash, d.embeddingStatus AS embeddingStatus,
       d.version AS version, coalesce(d.status, 'active') AS status,
       EXISTS { (d)-[:HAS_VERSION]->(:DocumentVersion {version: d.version}) } AS hasVersion
