// mode: write
// A `conflictResolved` event on the scope's feed (numbered as cypher/ingest/append_change.cypher
// numbers): the new version of the document no longer leaves these subjects contradicted.
// Each subject is "<key>" or "<key> [<conditions>]".
// :param scope => 'ragconflict'
// :param documentId => 'd_...'
// :param subjects => ['measurement:calibration tolerance']
MERGE (c:ChangeCounter {feed: $scope})
ON CREATE SET c.seq = 0
SET c.seq = c.seq + 1
CREATE (e:ChangeEvent {
  scope: $scope, seq: c.seq, kind: 'conflictResolved', documentId: $documentId, path: $path,
  oldVersion: $oldVersion, newVersion: $newVersion, subjects: $subjects,
  at: toString(datetime()), atMs: timestamp()
})
RETURN e.seq AS seq
