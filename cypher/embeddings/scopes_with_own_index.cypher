// mode: read
// returns: scope
// The scopes large enough to have their own indexes: those whose paragraphs carry a scope label
// (cypher/scope/label_paragraphs), one paragraph read per scope.
MATCH (d:Document)
WITH DISTINCT d.scope AS scope
CALL (scope) {
  MATCH (p:Paragraph {scope: scope})
  WITH p LIMIT 1
  RETURN any(l IN labels(p) WHERE l STARTS WITH 'Scope_s') AS labelled
}
WITH scope WHERE labelled
RETURN scope
ORDER BY scope
