:param path => 'waterglass/waterglass.md';
// mode: read
// returns: version, head, contentHash, createdAt, paragraphs, citedBy, events
// A document's history: every retained version, newest first, whether it is the head, how many
// answer records cite it, and the change feed's events that made or announced it
// (docs/versions.md).
MATCH (d:Document {path: $path})-[:HAS_VERSION]->(v:DocumentVersion)
OPTIONAL MATCH (e:ChangeEvent {scope: d.scope, documentId: d.id})
WHERE e.newVersion = v.version OR e.oldVersion = v.version
WITH d, v, e ORDER BY e.seq
WITH d, v, collect(CASE WHEN e IS NOT NULL THEN e.kind + ' #' + e.seq END) AS events
RETURN v.version AS version, v.version = d.version AS head, v.contentHash AS contentHash,
       v.createdAt AS createdAt, v.paragraphs AS paragraphs,
       COUNT { (:AnswerRecord)-[:CITED_DOCUMENT {version: v.version}]->(d) } AS citedBy, events
ORDER BY version DESC
