// mode: read
// A document's paragraphs in reading order, with their exact source offsets and lines.
// :param id => 'd_...'
MATCH (p:Paragraph {documentId: $id})
RETURN p.id AS id, p.ordinal AS ordinal, p.kind AS kind, p.headingPath AS headingPath,
       p.startOffset AS startOffset, p.endOffset AS endOffset,
       p.startLine AS startLine, p.endLine AS endLine, p.text AS text
ORDER BY p.ordinal
