// mode: schema
// Lexical channel of span retrieval (BM25 via Lucene).
CREATE FULLTEXT INDEX paragraph_text IF NOT EXISTS
FOR (p:Paragraph) ON EACH [p.text, p.headingText]
