// mode: schema
// The vector index of one large scope. Its paragraphs carry the scope's own label, so the HNSW
// search ranks that scope only instead of every scope in the database (Neo4j 5.26 cannot
// filter inside a vector index). A label cannot be a parameter in a schema command: the service
// replaces the token ScopeLabel with the scope's hash label (`Scope_s` + 16 hex) and the token
// VectorProperty with the model's property (service/embedding_space.py), both validated by
// service/db/graph.py, never with anything else.
// :param indexName => 'paragraph_embedding_s0123456789abcdef'
// :param dimensions => 384
CREATE VECTOR INDEX $indexName IF NOT EXISTS
FOR (p:ScopeLabel) ON p.VectorProperty
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}}
