// mode: read
// returns: id, title, headingPath, text, embeddingHash
// The next paragraphs, in id order after $after, that have no vector of the model (property
// $property) yet, with what their embedding text is made of (ingest/units.py embedding_input).
// Only head versions have Paragraph nodes, so these are all a switch has to embed.
// :param property => 'embedding_m0123abcd'
// :param after => ''
// :param limit => 256
MATCH (p:Paragraph)
WHERE p.id > $after AND p[$property] IS NULL
WITH p ORDER BY p.id LIMIT $limit
MATCH (d:Document {id: p.documentId})
RETURN p.id AS id, d.title AS title, p.headingPath AS headingPath, p.text AS text,
       p.embeddingHash AS embeddingHash
