// mode: write
// Forget a retired model once its vectors and indexes are gone.
// :param modelName => 'all-MiniLM-L6-v2@256'
MATCH (m:EmbeddingModel {name: $modelName, status: 'retiring'})
DELETE m
RETURN $modelName AS name
