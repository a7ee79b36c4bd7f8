// mode: read
// Complete documents (the maximum source boundary): every paragraph of each document in
// reading order, for small-to-big windows around spans and for neighbour evidence. `analysis`
// is the paragraph's text analysis stored at ingest (bytes, service/pipeline/analysis.py):
// the conflict scan decodes it instead of extracting facts again.
// :param documentIds => ['d_...']
UNWIND $documentIds AS documentId
MATCH (d:Document {id: documentId})
// A paragraph deleted by a concurrent commit while this read runs (READ COMMITTED) is read
// once as a map and dropped when its id is gone, so no row ever carries null properties.
MATCH (p:Paragraph {documentId: documentId})
WITH d, p {.id, .kind, .text, .ordinal, .headingPath, .startOffset, .endOffset, .startLine,
           .endLine, .analysis} AS p
WHERE p.id IS NOT NULL
RETURN d.id AS documentId, d.path AS path, d.title AS title,
       p.id AS paragraphId, p.kind AS kind, p.text AS text, p.ordinal AS ordinal,
       p.headingPath AS headingPath, p.startOffset AS startOffset, p.endOffset AS endOffset,
       p.startLine AS startLine, p.endLine AS endLine, p.analysis AS analysis
ORDER BY documentId, ordinal
