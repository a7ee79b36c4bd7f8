:param path => 'waterglass/waterglass.md';
// mode: read
// A document's headings in order, with their parent (null for top-level headings).
MATCH (d:Document {path: $path})
MATCH (h:Heading {documentId: d.id})
OPTIONAL MATCH (parent:Heading)-[:HAS_SUBHEADING]->(h)
RETURN h.id AS id, h.ordinal AS ordinal, h.level AS level, h.text AS text,
       h.headingPath AS headingPath, h.startOffset AS startOffset, h.endOffset AS endOffset,
       h.startLine AS startLine, parent.id AS parentId,
       EXISTS { (d)-[:HAS_HEADING]->(h) } AS topLevel
ORDER BY h.ordinal
