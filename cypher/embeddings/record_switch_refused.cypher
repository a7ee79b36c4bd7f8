// mode: write
// A switch whose new model missed a quality gate was not activated: every scope's feed gets a
// `switchRefused` event with the model, the gates missed and the measured figures (JSON text),
// numbered as ingest/append_change numbers them. The model stays built (`ready`): `kgs
// embeddings activate` or `switch --force` can still activate it.
// :param modelName => 'all-MiniLM-L6-v2@256'
// :param activeModel => 'all-MiniLM-L6-v2@384'
// :param failed => ['recall_at_1 >= 0.95: 0.91']
// :param figures => '{"recall_at_1": 0.91}'
MATCH (d:Document)
WITH DISTINCT d.scope AS scope
MERGE (c:ChangeCounter {feed: scope})
ON CREATE SET c.seq = 0
SET c.seq = c.seq + 1
CREATE (:ChangeEvent {
  scope: scope, seq: c.seq, kind: 'switchRefused', model: $modelName,
  previousModel: $activeModel, failedGates: $failed, figures: $figures,
  at: toString(datetime()), atMs: timestamp()
})
RETURN count(*) AS scopes
