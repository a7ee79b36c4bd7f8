// mode: write
// Activation and rollback in one transaction. The registry's write lock orders it against other
// activations and first writers; the coverage is counted again inside it, and the model becomes
// active only if every paragraph has its vector (no row otherwise: the caller embeds what is
// missing and tries again). The model active before becomes standby, its vectors kept for a
// rollback. Every scope's feed gets a `modelActivated` event, numbered as ingest/append_change
// numbers them.
// :param modelName => 'all-MiniLM-L6-v2@256'
MERGE (r:EmbeddingRegistry {id: 'embeddings'})
SET r.generation = coalesce(r.generation, 0) + 1
WITH r
MATCH (m:EmbeddingModel {name: $modelName})
WHERE m.status IN ['ready', 'standby', 'active']
CALL (m) {
  MATCH (p:Paragraph)
  RETURN count(p) AS paragraphs, count(p[m.property]) AS embedded
}
WITH m, paragraphs, embedded
WHERE paragraphs = embedded
OPTIONAL MATCH (old:EmbeddingModel {status: 'active'})
WHERE old <> m
SET old.status = 'standby', old.deactivatedAt = toString(datetime()),
    old.deactivatedAtMs = timestamp()
SET m.status = 'active', m.activatedAt = toString(datetime()), m.activatedAtMs = timestamp()
WITH m, old
CALL (m, old) {
  WITH m, old WHERE old IS NOT NULL
  MATCH (d:Document)
  WITH DISTINCT d.scope AS scope, m, old
  MERGE (c:ChangeCounter {feed: scope})
  ON CREATE SET c.seq = 0
  SET c.seq = c.seq + 1
  CREATE (:ChangeEvent {
    scope: scope, seq: c.seq, kind: 'modelActivated', model: m.name, previousModel: old.name,
    at: toString(datetime()), atMs: timestamp()
  })
  RETURN count(*) AS scopes
}
RETURN m.name AS name, old.name AS previous, scopes
