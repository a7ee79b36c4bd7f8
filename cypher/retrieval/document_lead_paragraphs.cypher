// mode: read
// returns: paragraphId, documentId, ordinal
// The first paragraphs of the documents describing the knowledge points a question names:
// the knowledge-point channel of retrieval (a named concept's definition comes first).
// :param documentIds => ['d_...']
// :param lead => 3
UNWIND $documentIds AS documentId
MATCH (p:Paragraph {documentId: documentId})
WHERE p.ordinal < $lead AND p.kind IN ['paragraph', 'list', 'table', 'quote']
RETURN p.id AS paragraphId, p.documentId AS documentId, p.ordinal AS ordinal
ORDER BY ordinal
