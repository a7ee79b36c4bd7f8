// mode: write
// Vectors are stored as float32 arrays, on the active model's property ($property,
// service/embedding_space.py); a row without one keeps the paragraph's current vectors. A new
// vector was made from new text, so the other models' vectors of the paragraph ($others) are
// removed: a model switch embeds that paragraph again rather than keep a stale vector.
UNWIND $rows AS row
MERGE (p:Paragraph {id: row.id})
SET p += row.properties, p.documentId = $documentId, p.scope = $scope
WITH p, row
CALL (p, row) {
  WITH p, row WHERE row.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(p, $property, row.embedding)
  FOREACH (other IN $others | SET p[other] = null)
}
