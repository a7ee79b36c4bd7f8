:param path => 'waterglass/waterglass.md';
// mode: read
// The NEXT chain from a document's first paragraph: the ids in the order the chain visits them.
MATCH (d:Document {path: $path})
MATCH (first:Paragraph {documentId: d.id})
WHERE NOT EXISTS { (:Paragraph)-[:NEXT]->(first) }
MATCH chain = (first)-[:NEXT*0..]->(last:Paragraph)
WHERE NOT EXISTS { (last)-[:NEXT]->() }
RETURN [p IN nodes(chain) | p.id] AS ids
