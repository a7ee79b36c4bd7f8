// mode: write
// Move a model that is not active between building, ready and retiring (activation and
// rollback go through embeddings/activate_model instead). No row: no such model, or it is
// the active one.
// :param modelName => 'all-MiniLM-L6-v2@256'
// :param status => 'ready'
MERGE (r:EmbeddingRegistry {id: 'embeddings'})
SET r.generation = coalesce(r.generation, 0) + 1
WITH r
MATCH (m:EmbeddingModel {name: $modelName})
WHERE m.status <> 'active'
SET m.status = $status
RETURN m.name AS name, m.status AS status
