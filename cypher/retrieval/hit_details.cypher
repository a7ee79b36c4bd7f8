// mode: read
// returns: paragraphs, documents
// In one round trip, the fused hits' paragraphs (with their document and the knowledge points
// describing it) and the documents the response lists in its document ranking.
// :param ids => ['p_...']
// :param documentIds => ['d_...']
CALL {
  UNWIND $ids AS id
  MATCH (p:Paragraph {id: id})
  MATCH (d:Document {id: p.documentId})
  OPTIONAL MATCH (k:KnowledgePoint)-[:DESCRIBED_IN]->(d)
  WITH p, d, collect(k.id) AS knowledgePointIds
  RETURN collect({
    paragraphId: p.id, documentId: p.documentId, path: d.path, title: d.title, kind: p.kind,
    text: p.text, ordinal: p.ordinal, headingPath: p.headingPath, startOffset: p.startOffset,
    endOffset: p.endOffset, startLine: p.startLine, endLine: p.endLine,
    knowledgePointIds: knowledgePointIds
  }) AS paragraphs
}
CALL {
  UNWIND $documentIds AS id
  MATCH (d:Document {id: id})
  RETURN collect({documentId: d.id, path: d.path, title: d.title}) AS documents
}
RETURN paragraphs, documents
