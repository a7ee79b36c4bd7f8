// mode: write
// A document owns the relations it declared (sourceDocumentId) and its DESCRIBED_IN/DECLARED_IN
// links; both are recreated from the new version in the same transaction. The relations are
// found from their source points (the document's relationSources), so the cost follows the
// document, not the scope.
// :param documentId => 'd_...'
// :param scope => 'waterglass'
CALL {
  MATCH (:Document {id: $documentId})<-[r:DESCRIBED_IN|DECLARED_IN]-(:KnowledgePoint)
  DELETE r
}
CALL {
  MATCH (d:Document {id: $documentId})
  UNWIND d.relationSources AS sourceId
  MATCH (:KnowledgePoint {scope: $scope, id: sourceId})-[r]->(:KnowledgePoint)
  WHERE r.sourceDocumentId = $documentId
  DELETE r
}
CALL {
  // written before documents recorded their sources: the whole scope is searched, once
  MATCH (d:Document {id: $documentId})
  UNWIND CASE WHEN d.relationSources IS NULL THEN [$scope] ELSE [] END AS legacyScope
  MATCH (:KnowledgePoint {scope: legacyScope})-[r]->(:KnowledgePoint)
  WHERE r.sourceDocumentId = $documentId
  DELETE r
}
