// mode: read
// A document's headings in order, with their parent (null for top-level headings).
// :param id => 'd_...'
MATCH (h:Heading {documentId: $id})
OPTIONAL MATCH (parent:Heading)-[:HAS_SUBHEADING]->(h)
RETURN h.id AS id, h.ordinal AS ordinal, h.level AS level, h.text AS text,
       h.headingPath AS headingPath, h.startOffset AS startOffset, h.endOffset AS endOffset,
       h.startLine AS startLine, h.endLine AS endLine, parent.id AS parentId,
       h.pageFirst AS pageFirst, h.pageLast AS pageLast, h.anchor AS anchor
ORDER BY h.ordinal
