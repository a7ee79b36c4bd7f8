// mode: read
// returns: seq, fulltext, vector, leads
// The channels of a large scope with its own indexes in one round trip: BM25 in the scope's own
// full-text index, the HNSW search of its own vector index (when $vector is given; while the
// question's embedding still computes it is null, and retrieval/vector_paragraphs_scope_index
// follows), and the lead paragraphs of the documents the question names. seq is the scope's
// change-feed position, read first: the service trusts its cached names only while it has not
// moved (service/pipeline/name_cache.py). fulltext and vector hold [paragraphId, documentId,
// score] best first, leads [paragraphId, documentId, ordinal]; an empty $lucene, a null
// $vector or no documents gives []. Fusion happens in the service
// (service/pipeline/retrieval.py).
// :param fulltextIndex => 'paragraph_search_s0123456789abcdef'
// :param vectorIndex => 'paragraph_embedding_s0123456789abcdef'
// :param lucene => 'waterglass "water glass"'
// :param vector => [0.1, ...]   (or null)
// :param documentIds => ['d_...']
// :param lead => 3
// :param scope => 'bench-latency-100k'
// :param limit => 40
CALL {
  OPTIONAL MATCH (c:ChangeCounter {feed: $scope})
  RETURN coalesce(c.seq, 0) AS seq
}
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
RETURN seq, fulltext, vector, leads
