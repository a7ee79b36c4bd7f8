// mode: read
// returns: version, releasedAt
// The tombstone of a document version that retention released (cypher/versions/
// release_versions.cypher): the API answers 410 with when it was released.
// :param id => 'd_...'
// :param version => 1
MATCH (d:Document {id: $id})-[:HAS_VERSION]->(v:ReleasedVersion {version: $version})
RETURN v.version AS version, v.releasedAt AS releasedAt
