// mode: read
// The state of one scope's vector index (no row: it does not exist).
// :param indexName => 'paragraph_embedding_s0123456789abcdef'
SHOW INDEXES YIELD name, state, populationPercent
WHERE name = $indexName
RETURN name, state, populationPercent
