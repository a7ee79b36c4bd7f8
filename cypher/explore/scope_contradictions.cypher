:param scope => 'ragconflict';
// mode: read
// returns: subject, conditions, value, path, line, statement
// The health report's contradictions as a graph: each subject the scope's active documents
// state with two or more values under one condition scope, one row per statement, with the
// paragraph that states it (`statement`: Paragraph -STATES-> Fact, drawn by Browser).
// The same grouping as cypher/health/contradicting_facts.cypher (`kgs health`).
MATCH (f:Fact {scope: $scope})
WHERE f.current AND f.kind <> 'aligned' AND NOT f.listNumber
WITH f.key AS key, f.conditions AS conditions, collect(f) AS facts, collect(DISTINCT f.norm) AS norms
WHERE size(norms) > 1
UNWIND facts AS f
MATCH (d:Document {id: f.documentId})
WHERE coalesce(d.status, 'active') = 'active'
WITH key, conditions, collect(DISTINCT f.norm) AS norms, collect({f: f, d: d}) AS stated
WHERE size(norms) > 1
UNWIND stated AS one
WITH key, conditions, one.f AS f, one.d AS d
MATCH statement = (:Paragraph {id: f.paragraphId})-[:STATES]->(f)
RETURN f.subject AS subject, conditions, f.value AS value, d.path AS path, f.line AS line,
       statement
ORDER BY key, conditions, path, f.order
