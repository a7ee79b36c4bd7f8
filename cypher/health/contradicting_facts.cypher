// mode: read
// returns: key, kind, subject, conditions, sides, cited
// Every subject a scope's active documents state with two or more values under one condition
// scope: the attribute facts the conflict scan compares (service/pipeline/conflicts), read
// from the Fact nodes rather than the text. Aligned facts (open prose) are compared pairwise
// by the scan, not here. Each side carries its paragraph id and sentence offsets (the page's
// quotes are read after ranking, cypher/health/paragraph_texts.cypher) and how many answer
// records cite that paragraph; `cited` counts the records citing any side. At most $maxSides
// facts per subject, in document and reading order, and at most $maxFindings subjects.
// :param scope => 'ragconflict'
// :param maxFindings => 10000
// :param maxSides => 20
MATCH (f:Fact {scope: $scope})
WHERE f.current AND f.kind <> 'aligned' AND NOT f.listNumber
WITH f.key AS key, f.conditions AS conditions, collect(f) AS facts, collect(DISTINCT f.norm) AS norms
WHERE size(norms) > 1
UNWIND facts AS f
MATCH (d:Document {id: f.documentId})
WHERE coalesce(d.status, 'active') = 'active'
MATCH (p:Paragraph {id: f.paragraphId})
WITH key, conditions, d, p, f
ORDER BY key, d.path, f.order
WITH key, conditions, collect(DISTINCT f.norm) AS norms,
     collect({kind: f.kind, subject: f.subject, value: f.value, norm: f.norm,
              documentId: d.id, path: d.path, title: d.title, version: f.version,
              paragraphId: p.id, line: f.line, startOffset: f.startOffset,
              sentenceStart: f.sentenceStart, sentenceEnd: f.sentenceEnd,
              pageFirst: p.pageFirst, anchor: p.anchor,
              cited: COUNT { (:AnswerRecord)-[:CITED]->(p) }}) AS sides
WHERE size(norms) > 1
CALL (sides) {  // answers citing any side, each once
  UNWIND sides AS side
  OPTIONAL MATCH (r:AnswerRecord)-[:CITED]->(:Paragraph {id: side.paragraphId})
  RETURN count(DISTINCT r) AS cited
}
RETURN key, sides[0].kind AS kind, sides[0].subject AS subject, conditions,
       sides[..$maxSides] AS sides, cited
ORDER BY key, conditions
LIMIT $maxFindings
