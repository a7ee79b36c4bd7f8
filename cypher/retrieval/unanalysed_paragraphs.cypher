// mode: read
// returns: paragraphId, text, headingText
// Paragraphs of the scope's documents written before their full-text statistics and tokens
// were stored (an ingest older than service/pipeline/lexical.py): the service tokenises them
// to complete the scope's BM25 statistics until `kgs ingest` rewrites them (their unit hash
// changed with the new fields).
// :param scope => 'waterglass'
MATCH (d:Document {scope: $scope})
WHERE d.path IS NOT NULL AND d.lexicalStats IS NULL
MATCH (p:Paragraph {documentId: d.id})
RETURN p.id AS paragraphId, p.text AS text, p.headingText AS headingText
