// mode: read
// returns: key, sourceId, type, targetId, stubEnd
// returns: sourceDocumentId, path, sourceParagraphId, sourceLine
// Relations the scope's active documents declare (Document.declaredRelations, written by
// cypher/ingest/create_relations.cypher) with an end that no page defines: no knowledge point
// of that id, or only a stub (a point a relation named, left by a run that stopped before it
// pruned). Ingest prunes such relations with their stub, so they are read from what each
// document declared. Ordered by a key of source, type, target and declaring document, joined
// by U+001F (below every printable character); rows after the cursor ($after: the last key of
// the previous page, '' for the first). One more row than the page is asked for, to know
// whether more exist.
// :param scope => 'waterglass'
// :param after => ''
// :param limit => 51
MATCH (d:Document {scope: $scope})
WHERE coalesce(d.status, 'active') = 'active' AND d.declaredRelations IS NOT NULL
UNWIND d.declaredRelations AS declared
WITH d, split(declared, '\u001f') AS part
WITH d, part[0] AS sourceId, part[1] AS type, part[2] AS targetId, part[3] AS line,
     part[4] AS paragraphId,
     part[0] + '\u001f' + part[1] + '\u001f' + part[2] + '\u001f' + d.id AS key
WHERE key > $after
WITH d, sourceId, type, targetId, line, paragraphId, key,
     EXISTS { MATCH (k:KnowledgePoint {scope: $scope, id: sourceId}) WHERE k.stub IS NULL } AS hasSource,
     EXISTS { MATCH (k:KnowledgePoint {scope: $scope, id: targetId}) WHERE k.stub IS NULL } AS hasTarget
WHERE NOT (hasSource AND hasTarget)
WITH DISTINCT d, sourceId, type, targetId, line, paragraphId, key, hasSource, hasTarget
ORDER BY key
LIMIT $limit
RETURN key, sourceId, type, targetId,
       CASE WHEN NOT hasSource AND NOT hasTarget THEN 'both'
            WHEN NOT hasTarget THEN 'target' ELSE 'source' END AS stubEnd,
       d.id AS sourceDocumentId, d.path AS path,
       CASE paragraphId WHEN '' THEN null ELSE paragraphId END AS sourceParagraphId,
       CASE line WHEN '' THEN null ELSE toInteger(line) END AS sourceLine
ORDER BY key
