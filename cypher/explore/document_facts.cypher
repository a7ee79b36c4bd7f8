:param path => 'ragconflict/calibration-tolerance-conflict-probe.md';
// mode: read
// returns: id, version, current, kind, subject, value, norm, conditions, line, statement
// The comparable facts a document states (docs/health.md), every version's, newest first and
// in reading order: `statement` is the Paragraph -STATES-> Fact path of a current fact (null
// for a fact of an older version, whose paragraph may be gone).
MATCH (d:Document {path: $path})
MATCH (f:Fact {documentId: d.id})
OPTIONAL MATCH statement = (:Paragraph)-[:STATES]->(f)
RETURN f.id AS id, f.version AS version, f.current AS current, f.kind AS kind,
       f.subject AS subject, f.value AS value, f.norm AS norm, f.conditions AS conditions,
       f.line AS line, statement
ORDER BY version DESC, f.order
