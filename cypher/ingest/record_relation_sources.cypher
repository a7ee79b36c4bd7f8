// mode: write
// Once per scope, for documents written before documents recorded their relations' source
// points: records them (relationSources, see ingest/create_relations), so editing such a
// document no longer searches every knowledge point of the scope. Their write locks are taken
// first, as lock_document does, and the property is read again under them: a writer that
// committed in between keeps what it wrote, and none can change their relations meanwhile.
// The marker recordingSources lives only inside this transaction.
// :param scope => 'waterglass'
MATCH (d:Document {scope: $scope})
WHERE d.relationSources IS NULL
SET d.lockedAt = timestamp()
WITH collect(d) AS locked
WITH [d IN locked WHERE d.relationSources IS NULL] AS legacy
CALL (legacy) {
  UNWIND legacy AS d
  SET d.relationSources = [], d.recordingSources = true
}
CALL (legacy) {
  WITH legacy WHERE size(legacy) > 0
  MATCH (s:KnowledgePoint {scope: $scope})-[r]->(:KnowledgePoint)
  WHERE r.sourceDocumentId IS NOT NULL
  WITH r.sourceDocumentId AS documentId, collect(DISTINCT s.id) AS sources
  MATCH (d:Document {id: documentId})
  WHERE d.recordingSources
  SET d.relationSources = sources
}
CALL (legacy) {
  UNWIND legacy AS d
  REMOVE d.recordingSources
}
RETURN size(legacy) AS recorded
