// mode: read
// returns: paragraphId, documentId, path, cosine, updated, validUntil, supersededBy
// Support signals of the retrieved paragraphs for the sufficiency review: each paragraph's
// cosine to the question (stored embedding; null without one) and its document's validity
// (updated, validUntil, supersededBy from the front matter).
// :param paragraphIds => ['p_...']
// :param vector => [0.1, ...]   (the question's embedding; [] when there is none)
// :param property => 'embedding'   (the paragraph property of the model that embedded it;
//   the service writes it in place of the token VectorProperty (service/db/cypher_registry.py))
UNWIND $paragraphIds AS paragraphId
MATCH (p:Paragraph {id: paragraphId})
MATCH (d:Document {id: p.documentId})
RETURN p.id AS paragraphId, d.id AS documentId, d.path AS path,
       CASE WHEN size($vector) > 0 AND p.VectorProperty IS NOT NULL
            THEN vector.similarity.cosine(p.VectorProperty, $vector) END AS cosine,
       d.updated AS updated, d.validUntil AS validUntil, d.supersededBy AS supersededBy
