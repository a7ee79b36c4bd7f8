// mode: write
// The first model of a graph, recorded active by whoever writes or switches first: only while
// no model is active. The registry node's write lock orders concurrent first writers (and
// activations), so one model ends active.
// :param modelName => 'all-MiniLM-L6-v2@384'
MERGE (r:EmbeddingRegistry {id: 'embeddings'})
SET r.generation = coalesce(r.generation, 0) + 1
WITH r
OPTIONAL MATCH (a:EmbeddingModel {status: 'active'})
WITH r, a
CALL (a) {
  WITH a WHERE a IS NULL
  MERGE (m:EmbeddingModel {name: $modelName})
  ON CREATE SET m.model = $model, m.dimensions = $dimensions, m.normalised = $normalised,
                m.property = $property, m.index = $index, m.createdAt = toString(datetime())
  SET m.status = 'active', m.activatedAt = toString(datetime()), m.activatedAtMs = timestamp()
  RETURN m.name AS recorded
  UNION ALL
  WITH a WHERE a IS NOT NULL
  RETURN a.name AS recorded
}
RETURN recorded AS name
