// mode: schema
// Drop a scope's vector index (the scope shrank below the size that needs one, or is gone).
// :param indexName => 'paragraph_embedding_s0123456789abcdef'
DROP INDEX $indexName IF EXISTS
