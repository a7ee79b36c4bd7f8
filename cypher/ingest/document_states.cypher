// mode: read
// What the graph holds for one scope: a document is skipped when its unitHash is unchanged.
MATCH (d:Document {scope: $scope})
RETURN d.id AS id, d.path AS path, d.unitHash AS unitHash, d.embeddingStatus AS embeddingStatus,
       d.version AS version, coalesce(d.status, 'active') AS status,
       EXISTS { (d)-[:HAS_VERSION]->(:DocumentVersion {version: d.version}) } AS hasVersion
