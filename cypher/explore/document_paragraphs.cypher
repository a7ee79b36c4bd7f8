:param path => 'waterglass/waterglass.md';
// mode: read
// A document's paragraphs in reading order, with their exact source offsets and lines, and the
// properties holding their vectors (one per embedding model, docs/embeddings.md).
MATCH (d:Document {path: $path})
WITH d, d.version AS version
// A paragraph deleted by a concurrent commit while this read runs (READ COMMITTED) is read
// once as a map and dropped when its id is gone, so no row ever carries null properties.
MATCH (p:Paragraph {documentId: d.id})
WITH d, version, p {.id, .ordinal, .kind, .headingPath, .startOffset, .endOffset, .startLine,
                    .endLine, .text,
                    vectors: [k IN keys(p) WHERE k = 'embedding' OR k STARTS WITH 'embedding_m']}
      AS p
WHERE p.id IS NOT NULL
WITH d, version, collect(p) AS paragraphs
// An index scan that straddled the commit of a new version may have met paragraphs of both:
// the version read again after the scan tells, and such a read returns no row.
WHERE d.version = version
UNWIND paragraphs AS p
RETURN p.id AS id, p.ordinal AS ordinal, p.kind AS kind, p.headingPath AS headingPath,
       p.startOffset AS startOffset, p.endOffset AS endOffset,
       p.startLine AS startLine, p.endLine AS endLine, p.text AS text, p.vectors AS vectors
ORDER BY p.ordinal
