// mode: read
// returns: fulltext, vector, leads
// Every retrieval channel of a large scope in one round trip: BM25 in the scope's own full-text
// index, the HNSW search in its own vector index, and the lead paragraphs of the documents the
// question names. Each list holds [paragraphId, documentId, score] best first (leads: ordinal
// instead of score). A channel whose input is empty ($lucene '', $vector null, no documents)
// returns []; fusion happens in the service (service/pipeline/retrieval.py).
// :param fulltextIndex => 'paragraph_search_s0123456789abcdef'
// :param vectorIndex => 'paragraph_embedding_s0123456789abcdef'
// :param lucene => 'waterglass "water glass"'
// :param vector => [0.1, ...]   (the question's 384-dimension embedding, or null)
// :param documentIds => ['d_...']
// :param lead => 3
// :param scope => 'bench-latency-100k'
// :param limit => 40
CALL {
  WITH $lucene AS lucene
  WHERE lucene <> ''
  CALL db.index.fulltext.queryNodes($fulltextIndex, lucene, {limit: $limit})
  YIELD node, score
  WHERE node.scope = $scope
  RETURN collect([node.id, node.documentId, score]) AS fulltext
}
CALL {
  WITH $vector AS vector
  WHERE vector IS NOT NULL
  CALL db.index.vector.queryNodes($vectorIndex, $limit, vector)
  YIELD node, score
  WHERE node.scope = $scope
  RETURN collect([node.id, node.documentId, score]) AS vector
}
CALL {
  UNWIND $documentIds AS documentId
  MATCH (p:Paragraph {documentId: documentId})
  WHERE p.ordinal < $lead AND p.kind IN ['paragraph', 'list', 'table', 'quote']
  WITH p ORDER BY p.ordinal
  RETURN collect([p.id, p.documentId, p.ordinal]) AS leads
}
RETURN fulltext, vector, leads
