// mode: schema
// The full-text index of one large scope, over the same fields as the shared paragraph_search
// (paragraph text and heading path) and with the same analyzer. Lucene's BM25 statistics
// (document frequency, document count, average length) are an index's: in the scope's own
// index they are this scope's, so other scopes never move its scores. A label cannot be a
// parameter in a schema command: the service replaces the token ScopeLabel with the scope's
// hash label (`Scope_s` + 16 hex, validated by service/db/graph.py), never with anything else.
// :param indexName => 'paragraph_search_s0123456789abcdef'
CREATE FULLTEXT INDEX $indexName IF NOT EXISTS
FOR (p:ScopeLabel) ON EACH [p.text, p.headingText]
