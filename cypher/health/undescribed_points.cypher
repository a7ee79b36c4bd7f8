// mode: read
// returns: id, title, declaredIn, declaredInCount
// Knowledge points of a scope that no active document describes (no DESCRIBED_IN): points only
// named in some document's `knowledge_points:` (DECLARED_IN). Stubs, named only by a relation,
// are left to health/dangling_relations. By id after the cursor ($after: the last id of the
// previous page, '' for the first); the (scope, id) constraint's index serves the seek and the
// order. The declaring documents: the first $maxDeclaring by path, and their count. One more
// row than the page is asked for, to know whether more exist.
// :param scope => 'waterglass'
// :param after => ''
// :param maxDeclaring => 20
// :param limit => 51
MATCH (k:KnowledgePoint)
WHERE k.scope = $scope AND k.id > $after AND coalesce(k.stub, false) = false
  AND NOT EXISTS {
    MATCH (k)-[:DESCRIBED_IN]->(d:Document)
    WHERE coalesce(d.status, 'active') = 'active'
  }
WITH k ORDER BY k.id LIMIT $limit
WITH k, COLLECT {
  MATCH (k)-[:DECLARED_IN]->(d:Document)
  WHERE coalesce(d.status, 'active') = 'active'
  RETURN {documentId: d.id, path: d.path} AS document ORDER BY d.path
} AS declaring
RETURN k.id AS id, k.title AS title, declaring[..$maxDeclaring] AS declaredIn,
       size(declaring) AS declaredInCount
ORDER BY id
