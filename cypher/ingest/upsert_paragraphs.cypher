// mode: write
// Vectors are stored as float32 arrays; a row without one keeps the paragraph's current vector.
UNWIND $rows AS row
MERGE (p:Paragraph {id: row.id})
SET p += row.properties, p.documentId = $documentId, p.scope = $scope
WITH p, row
CALL (p, row) {
  WITH p, row WHERE row.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(p, 'embedding', row.embedding)
}
