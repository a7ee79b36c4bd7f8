// mode: read
// returns: key, sourceId, type, targetId, stubEnd
// returns: sourceDocumentId, path, sourceParagraphId, sourceLine
// Typed relations ($relationTypes: the allowlist) of a scope with a stub at either end: a point
// that create_relations made because a relation named it and no document describes or declares
// it. Ordered by a key of source, type, target, declaring document and the relation's element
// id (unique, so no row is skipped at a page's edge), joined by U+001F, which sorts below every
// printable character; rows after the cursor ($after: the last key of the previous page, ''
// for the first). One more row than the page is asked for, to know whether more exist.
// :param scope => 'waterglass'
// :param relationTypes => ['IS_A', 'PART_OF', 'PRECEDES', 'REFERENCES', 'CITES']
// :param after => ''
// :param limit => 51
MATCH (stub:KnowledgePoint)
WHERE stub.scope = $scope AND stub.stub = true
MATCH (stub)-[r]-(:KnowledgePoint)
WHERE type(r) IN $relationTypes
WITH DISTINCT r
WITH r, startNode(r) AS s, endNode(r) AS t
WITH r, s, t,
     s.id + '\u001f' + type(r) + '\u001f' + t.id + '\u001f'
       + coalesce(r.sourceDocumentId, '') + '\u001f' + elementId(r) AS key
WHERE key > $after
WITH r, s, t, key ORDER BY key LIMIT $limit
OPTIONAL MATCH (d:Document {id: r.sourceDocumentId})
RETURN key, s.id AS sourceId, type(r) AS type, t.id AS targetId,
       CASE WHEN coalesce(s.stub, false) AND coalesce(t.stub, false) THEN 'both'
            WHEN coalesce(t.stub, false) THEN 'target' ELSE 'source' END AS stubEnd,
       r.sourceDocumentId AS sourceDocumentId, d.path AS path,
       r.sourceParagraphId AS sourceParagraphId, r.sourceLine AS sourceLine
ORDER BY key
