// mode: schema
// Drop a scope's full-text index (the scope shrank below the size that needs one, or is gone).
// :param indexName => 'paragraph_search_s0123456789abcdef'
DROP INDEX $indexName IF EXISTS
