// mode: read
// The state of one scope's full-text index (no row: it does not exist).
// :param indexName => 'paragraph_search_s0123456789abcdef'
SHOW INDEXES YIELD name, state, populationPercent
WHERE name = $indexName
RETURN name, state, populationPercent
