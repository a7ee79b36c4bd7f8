// mode: read
// returns: name, model, dimensions, normalised, property, index
// The model questions and ingestion use (service/embedding_space.py); no row: none recorded
// yet. Activation keeps exactly one model active (embeddings/activate_model).
MATCH (m:EmbeddingModel {status: 'active'})
RETURN m.name AS name, m.model AS model, m.dimensions AS dimensions,
       m.normalised AS normalised, m.property AS property, m.index AS index
ORDER BY m.activatedAtMs DESC
LIMIT 1
