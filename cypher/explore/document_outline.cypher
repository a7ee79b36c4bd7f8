:param path => 'waterglass/waterglass.md';
// mode: read
// A document's structure as a graph: the document, its heading tree and its paragraphs.
MATCH (d:Document {path: $path})
OPTIONAL MATCH structure = (d)-[:HAS_HEADING|HAS_SUBHEADING|HAS_PARAGRAPH*1..8]->()
RETURN d, structure
