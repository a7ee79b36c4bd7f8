// mode: read
// returns: vector, paragraphs
// The vector channel of a large scope once the question's embedding is done, with the details of
// every candidate, so the fused hits need no further read: the HNSW search in the scope's own
// index (no oversampling: it holds no other scope), then the paragraphs of its hits and of
// $knownIds (the full-text and lead candidates read while the embedding computed) in the shape
// of retrieval/hit_details. vector holds [paragraphId, documentId, score] best first.
// :param indexName => 'paragraph_embedding_s0123456789abcdef'
// :param vector => [0.1, ...]   (the question's 384-dimension embedding)
// :param scope => 'bench-latency-100k'
// :param limit => 40
// :param knownIds => ['p_...']
CALL {
  CALL db.index.vector.queryNodes($indexName, $limit, $vector)
  YIELD node, score
  WHERE node.scope = $scope
  RETURN collect([node.id, node.documentId, score]) AS vector
}
CALL {
  WITH vector
  UNWIND $knownIds + [row IN vector | row[0]] AS id
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
RETURN vector, paragraphs
