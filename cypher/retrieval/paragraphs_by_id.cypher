// mode: read
// returns: paragraphId, documentId, path, title, kind, text, ordinal, headingPath, startOffset
// returns: endOffset, startLine, endLine, knowledgePointIds
// The fused hits' paragraphs with their document and the knowledge points describing it.
// :param ids => ['p_...']
UNWIND $ids AS id
MATCH (p:Paragraph {id: id})
MATCH (d:Document {id: p.documentId})
OPTIONAL MATCH (k:KnowledgePoint)-[:DESCRIBED_IN]->(d)
RETURN p.id AS paragraphId, p.documentId AS documentId, d.path AS path, d.title AS title,
       p.kind AS kind, p.text AS text, p.ordinal AS ordinal, p.headingPath AS headingPath,
       p.startOffset AS startOffset, p.endOffset AS endOffset,
       p.startLine AS startLine, p.endLine AS endLine,
       collect(k.id) AS knowledgePointIds
