// mode: read
// returns: scope, bestCosine, method
// Pre-ranking of a question without a scope (service/question/scope_choice.py): for each of
// $scopes (the caller's readable scopes; no other scope is read or returned), the best cosine
// of the question's embedding to its paragraphs, best first. One rule, explicit and bounded:
// while $scopes hold at most $exactMaxParagraphs paragraphs (counted up to one more) the cosine
// is exact over every embedded paragraph of theirs ('exact'); beyond that, the shared HNSW
// index's $candidates nearest paragraphs of the whole database, kept when in $scopes ('index':
// a scope none of whose paragraphs is among them gets no row). A scope without an embedded
// paragraph gets no row. Both give Neo4j's cosine ((1 + cos) / 2, as answer/evidence_support).
// :param scopes => ['opticalbench', 'kitchen', 'waterglass']
// :param vector => [0.1, ...]   (the question's embedding by the active model)
// :param property => 'embedding'   (that model's paragraph property and shared index;
//   the service writes it in place of the token VectorProperty (service/db/cypher_registry.py))
// :param indexName => 'paragraph_embedding'
// :param exactMaxParagraphs => 3000
// :param candidates => 4000
CALL () {
  MATCH (p:Paragraph)
  WHERE p.scope IN $scopes
  WITH p LIMIT $exactMaxParagraphs + 1
  RETURN count(p) AS paragraphs
}
CALL (paragraphs) {
  WITH paragraphs
  WHERE paragraphs <= $exactMaxParagraphs
  MATCH (p:Paragraph)
  WHERE p.scope IN $scopes AND p.VectorProperty IS NOT NULL
  RETURN p.scope AS scope, max(vector.similarity.cosine(p.VectorProperty, $vector)) AS bestCosine,
         'exact' AS method
  UNION ALL
  WITH paragraphs
  WHERE paragraphs > $exactMaxParagraphs
  CALL db.index.vector.queryNodes($indexName, $candidates, $vector)
  YIELD node, score
  WHERE node.scope IN $scopes
  RETURN node.scope AS scope, max(score) AS bestCosine, 'index' AS method
}
RETURN scope, bestCosine, method
ORDER BY bestCosine DESC, scope
