// mode: read
// A document's paragraphs in reading order, with their exact source offsets and lines.
// :param id => 'd_...'
// A paragraph deleted by a concurrent commit while this read runs (READ COMMITTED) is read
// once as a map and dropped when its id is gone, so no row ever carries null properties.
MATCH (p:Paragraph {documentId: $id})
WITH p {.id, .ordinal, .kind, .headingPath, .startOffset, .endOffset, .startLine, .endLine,
        .text, .pageFirst, .pageLast, .pageStarts, .anchor} AS p
WHERE p.id IS NOT NULL
RETURN p.id AS id, p.ordinal AS ordinal, p.kind AS kind, p.headingPath AS headingPath,
       p.startOffset AS startOffset, p.endOffset AS endOffset,
       p.startLine AS startLine, p.endLine AS endLine, p.text AS text,
       p.pageFirst AS pageFirst, p.pageLast AS pageLast, p.pageStarts AS pageStarts,
       p.anchor AS anchor
ORDER BY p.ordinal
