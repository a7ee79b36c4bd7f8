// mode: read
// returns: documentId, path, title, version, paragraphs
// Complete documents (the maximum source boundary): every paragraph of each document in
// reading order, for small-to-big windows around spans and for neighbour evidence. One row per
// document with its paragraphs as a list of maps (a row per paragraph cost twice the time in
// the driver). `analysis` is the paragraph's text analysis stored at ingest (bytes,
// service/text/analysis.py): the conflict scan decodes it instead of extracting again.
// :param documentIds => ['d_...']
UNWIND $documentIds AS documentId
MATCH (d:Document {id: documentId})
// A paragraph deleted by a concurrent commit while this read runs (READ COMMITTED) is read
// once as a map and dropped when its id is gone, so no map ever carries null properties.
MATCH (p:Paragraph {documentId: documentId})
WITH d, p {paragraphId: p.id, .kind, .text, .ordinal, .headingPath, .startOffset, .endOffset,
           .startLine, .endLine, .analysis} AS p
WHERE p.paragraphId IS NOT NULL
WITH d, p
ORDER BY p.ordinal
RETURN d.id AS documentId, d.path AS path, d.title AS title, d.version AS version,
       collect(p) AS paragraphs
