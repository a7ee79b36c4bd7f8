// mode: read
// returns: key, conditions
// The subjects a document states (its current attribute facts) that the scope's active
// documents state with two or more values under one condition scope: the health report's
// contradictions this document takes part in. With $subjects, only those are checked: a new
// version's write reads them before and after replacing its facts, and announces the ones no
// longer contradicted (cypher/facts/announce_resolved.cypher).
// :param documentId => 'd_...'
// :param scope => 'ragconflict'
// :param subjects => null
OPTIONAL MATCH (mine:Fact {documentId: $documentId})
WHERE $subjects IS NULL AND mine.current AND mine.kind <> 'aligned' AND NOT mine.listNumber
WITH collect(DISTINCT CASE WHEN mine IS NOT NULL
                           THEN {key: mine.key, conditions: mine.conditions} END) AS own
UNWIND coalesce($subjects, own) AS subject
WITH subject.key AS key, subject.conditions AS conditions
MATCH (f:Fact {scope: $scope, key: key})
WHERE f.current AND f.conditions = conditions AND NOT f.listNumber
  AND EXISTS { MATCH (d:Document {id: f.documentId}) WHERE coalesce(d.status, 'active') = 'active' }
WITH key, conditions, count(DISTINCT f.norm) AS values
WHERE values > 1
RETURN key, conditions
ORDER BY key, conditions
