// mode: read
// returns: documentId, path, version
// The next documents of a scope whose facts are missing or in another layout (written before
// facts were nodes): `kgs facts rebuild` writes them a batch at a time, in id order, and a
// run that stops resumes where the marker (Document.factLayout) is still missing.
// :param scope => 'ragconflict'
// :param layout => 'fact-nodes-2'
// :param after => ''
// :param batch => 100
MATCH (d:Document {scope: $scope})
WHERE d.id > $after AND coalesce(d.factLayout, '') <> $layout AND d.version IS NOT NULL
RETURN d.id AS documentId, d.path AS path, d.version AS version
ORDER BY documentId
LIMIT $batch
