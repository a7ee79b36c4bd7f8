// mode: read
// returns: documentId, path, title
// The documents of the fused document ranking that the response lists (topK of them), so a
// client sees which documents were ranked beyond those whose paragraphs became hits.
// :param ids => ['d_...']
UNWIND $ids AS id
MATCH (d:Document {id: id})
RETURN d.id AS documentId, d.path AS path, d.title AS title
