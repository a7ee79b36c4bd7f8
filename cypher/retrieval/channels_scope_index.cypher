// mode: read
// returns: fulltext, leads, paragraphs
// The rest of a large scope's retrieval in one round trip, once its HNSW search (beside the
// name read, in retrieval/vector_paragraphs_scope_index) has returned: BM25 in the scope's own
// full-text index, the lead paragraphs of the documents the question names, and the details of
// every candidate of the three channels, so the fused hits need no further read. fulltext holds
// [paragraphId, documentId, score] best first, leads [paragraphId, documentId, ordinal];
// paragraphs holds one map per candidate in the shape of retrieval/hit_details. An empty
// $lucene or no documents gives []. Fusion happens in the service (service/pipeline/retrieval.py).
// :param fulltextIndex => 'paragraph_search_s0123456789abcdef'
// :param lucene => 'waterglass "water glass"'
// :param documentIds => ['d_...']
// :param vectorIds => ['p_...']
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
CALL {
  WITH fulltext, leads
  UNWIND $vectorIds + [row IN fulltext | row[0]] + [row IN leads | row[0]] AS id
  WITH DISTINCT id
  MATCH (p:Paragraph {id: id})
  WITH p.documentId AS documentId, collect(p) AS found
  MATCH (d:Document {id: documentId})
  OPTIONAL MATCH (k:KnowledgePoint)-[:DESCRIBED_IN]->(d)
  WITH d, found, collect(k.id) AS knowledgePointIds
  UNWIND found AS p
  RETURN collect({
    paragraphId: p.id, documentId: p.documentId, path: d.path, title: d.title, kind: p.kind,
    text: p.text, ordinal: p.ordinal, headingPath: p.headingPath, startOffset: p.startOffset,
    endOffset: p.endOffset, startLine: p.startLine, endLine: p.endLine,
    knowledgePointIds: knowledgePointIds
  }) AS paragraphs
}
RETURN fulltext, leads, paragraphs
