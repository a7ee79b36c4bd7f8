// mode: write
// Record a model being built beside the active one (`kgs embeddings switch`); an existing entry
// keeps its status.
// :param modelName => 'all-MiniLM-L6-v2@256'
MERGE (m:EmbeddingModel {name: $modelName})
ON CREATE SET m.model = $model, m.dimensions = $dimensions, m.normalised = $normalised,
              m.property = $property, m.index = $index, m.status = 'building',
              m.createdAt = toString(datetime())
RETURN m.name AS name, m.status AS status
