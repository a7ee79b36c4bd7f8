// mode: read
// returns: id
// A document's id from its scope and its path in the knowledge base ("<scope>/<path in scope>",
// as ingest stores it): the MCP tool get_document and the kgs:// resources name documents so.
// The caller checks the scope against the key's grant first.
// :param scope => 'waterglass'
// :param path => 'waterglass/water-glass.md'
MATCH (d:Document {scope: $scope, path: $path})
RETURN d.id AS id
LIMIT 1
