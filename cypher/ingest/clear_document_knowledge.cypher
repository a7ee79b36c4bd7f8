// mode: write
// A document owns the relations it declared (sourceDocumentId) and its DESCRIBED_IN/DECLARED_IN
// links; both are recreated from the new version in the same transaction.
CALL {
  MATCH (:Document {id: $documentId})<-[r:DESCRIBED_IN|DECLARED_IN]-(:KnowledgePoint)
  DELETE r
}
CALL {
  MATCH (:KnowledgePoint {scope: $scope})-[r]->(:KnowledgePoint)
  WHERE r.sourceDocumentId = $documentId
  DELETE r
}
