// mode: read
// A document's paragraphs in reading order, with their exact source offsets and lines.
// :param path => 'waterglass/waterglass.md'
MATCH (d:Document {path: $path})
MATCH (p:Paragraph {documentId: d.id})
RETURN p.id AS id, p.ordinal AS ordinal, p.kind AS kind, p.headingPath AS headingPath,
       p.startOffset AS startOffset, p.endOffset AS endOffset,
       p.startLine AS startLine, p.endLine AS endLine, p.text AS text,
       p.embedding IS NOT NULL AS embedded
ORDER BY p.ordinal
