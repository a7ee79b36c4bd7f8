// mode: write
// One event of the scope's publication feed, in the transaction that makes the change. The
// increment reads the counter under its write lock (Cypher takes it before a dependent read),
// so writers of a scope take consecutive numbers in commit order: no gap, no duplicate. The
// counter has no `scope` property: deleting a scope keeps it, and its numbers never restart.
// :param scope => 'waterglass'
// :param kind => 'updated'
MERGE (c:ChangeCounter {feed: $scope})
ON CREATE SET c.seq = 0
SET c.seq = c.seq + 1
CREATE (e:ChangeEvent {
  scope: $scope, seq: c.seq, kind: $kind, documentId: $documentId, path: $path,
  oldVersion: $oldVersion, newVersion: $newVersion,
  at: toString(datetime()), atMs: timestamp()
})
RETURN e.seq AS seq
