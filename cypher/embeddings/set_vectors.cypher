// mode: write
// Store one model's vectors (float32) on paragraphs whose text is still the one embedded: a
// paragraph rewritten meanwhile (another embeddingHash than the one read with its text) or
// deleted is skipped, and the next pass of the switch finds it again.
// :param property => 'embedding_m0123abcd'
// :param rows => [{id: 'p_...', embeddingHash: '...', vector: [0.1, ...]}]
UNWIND $rows AS row
MATCH (p:Paragraph {id: row.id})
WHERE coalesce(p.embeddingHash, '') = coalesce(row.embeddingHash, '')
CALL db.create.setNodeVectorProperty(p, $property, row.vector)
RETURN count(p) AS written
