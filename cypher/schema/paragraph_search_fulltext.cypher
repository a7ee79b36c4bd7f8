// mode: schema
// Lexical channel of span retrieval over paragraph text and its heading path, shared by every
// scope. scopeKey is one opaque token per scope, so a query can require its scope inside Lucene
// (`+scopeKey:s…`) instead of filtering after the index has cut its top-N. Its BM25 scores use
// statistics of the whole index, so retrieval does not rank by them: in a small scope it only
// finds the complete set of matching paragraphs, which the service scores with the scope's own
// statistics (cypher/retrieval/fulltext_paragraphs_exact.cypher); a large scope has its own
// full-text index (cypher/scope/paragraph_fulltext_index.cypher).
CREATE FULLTEXT INDEX paragraph_search IF NOT EXISTS
FOR (p:Paragraph) ON EACH [p.text, p.headingText, p.scopeKey]
