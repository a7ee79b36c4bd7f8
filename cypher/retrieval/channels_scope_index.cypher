// mode: read
// returns: fulltext, leads
// The full-text and lead channels of a large scope in one round trip (its HNSW search runs
// beside the name read, in retrieval/vector_paragraphs_scope_index): BM25 in the scope's own
// full-text index, and the lead paragraphs of the documents the question names. fulltext holds
// [paragraphId, documentId, score] best first, leads [paragraphId, documentId, ordinal]; an
// empty $lucene or no documents gives []. Fusion happens in the service
// (service/pipeline/retrieval.py).
// :param fulltextIndex => 'paragraph_search_s0123456789abcdef'
// :param lucene => 'waterglass "water glass"'
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
  UNWIND $documentIds AS documentId
  MATCH (p:Paragraph {documentId: documentId})
  WHERE p.ordinal < $lead AND p.kind IN ['paragraph', 'list', 'table', 'quote']
  WITH p ORDER BY p.ordinal
  RETURN collect([p.id, p.documentId, p.ordinal]) AS leads
}
RETURN fulltext, leads
