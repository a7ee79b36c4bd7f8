// mode: schema
// Lexical channel of span retrieval (Lucene BM25) over paragraph text and its heading path.
// scopeKey is one opaque token per scope, so a query can require its scope inside Lucene
// (`+scopeKey:s…`) instead of filtering after the index has cut its top-N.
CREATE FULLTEXT INDEX paragraph_search IF NOT EXISTS
FOR (p:Paragraph) ON EACH [p.text, p.headingText, p.scopeKey]
