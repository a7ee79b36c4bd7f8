// mode: read
// returns: id, replayId, scope, scopes, query, request, status, createdAt, keyName, stale
// returns: staleReason, documents, response
// One stored answer record: its compressed response (trace included) and the documents it cited
// or used, with the version and content hash they had then and have now (null: removed since).
// :param id => 't_0123456789abcdef'
MATCH (r:AnswerRecord {id: $id})
RETURN r.id AS id, r.replayId AS replayId, r.scope AS scope, r.scopes AS scopes,
       r.query AS query, r.request AS request, r.status AS status, r.createdAt AS createdAt,
       r.keyName AS keyName, r.staleAt IS NOT NULL AS stale, r.staleReason AS staleReason,
       [(r)-[c:CITED_DOCUMENT]->(d:Document) | {
         documentId: d.id, path: d.path, version: c.version, contentHash: c.contentHash,
         currentVersion: d.version, currentContentHash: d.contentHash
       }] AS documents,
       r.response AS response
