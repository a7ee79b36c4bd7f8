// mode: write
// Count new answer records into the operations rollups (service/records/rollup.py): answers by
// scope, hour and status; a latency histogram by scope, day and stage; citations by scope, day
// and document; unanswered questions by scope, day, key words and status. Run in the record's
// own transaction, only when the record was created, so a record is counted once. A rollup
// written twice by two service replicas at once is summed by every read, so it counts alike.
// :param answers => [{scope: 'kitchen', status: 'partial', hourMs: 1764871200000, dayMs: 1764806400000, atMs: 1764871234567, traceId: 't_0123456789abcdef', stages: [{stage: 'retrieval', bin: 6, ms: 31.5}], documents: ['d_...'], gap: {key: 'stock', words: ['stock'], query: 'How long does stock keep?'}}]
// :param bins => 15
// :param maxWordings => 5
UNWIND $answers AS a
MERGE (h:OpsHour {scope: a.scope, hourMs: a.hourMs, status: a.status})
ON CREATE SET h.answers = 0
SET h.answers = h.answers + 1
WITH a
CALL (a) {
  UNWIND a.stages AS s
  MERGE (l:OpsLatencyDay {scope: a.scope, dayMs: a.dayMs, stage: s.stage})
  ON CREATE SET l.counts = [i IN range(1, $bins) | 0], l.sumMs = 0.0
  SET l.counts = [i IN range(0, size(l.counts) - 1) |
                  l.counts[i] + CASE WHEN i = s.bin THEN 1 ELSE 0 END],
      l.sumMs = l.sumMs + s.ms
}
CALL (a) {
  UNWIND a.documents AS documentId
  // The writer stores a record after its answer: a document purged in between is not counted
  // (cypher/ingest/delete_document.cypher removed its counts, and nothing may recreate them).
  MATCH (:Document {id: documentId})
  MERGE (c:OpsCitedDay {scope: a.scope, dayMs: a.dayMs, documentId: documentId})
  ON CREATE SET c.citations = 0
  SET c.citations = c.citations + 1
}
CALL (a) {
  UNWIND CASE WHEN a.gap IS NULL THEN [] ELSE [a.gap] END AS g
  MERGE (q:OpsGapDay {scope: a.scope, dayMs: a.dayMs, key: g.key, status: a.status})
  ON CREATE SET q.asked = 0, q.words = g.words, q.wordings = [], q.lastAskedMs = 0
  SET q.asked = q.asked + 1,
      q.wordings = CASE WHEN g.query IN q.wordings OR size(q.wordings) >= $maxWordings
                        THEN q.wordings ELSE q.wordings + g.query END
  WITH q, g WHERE a.atMs >= q.lastAskedMs
  SET q.lastAskedMs = a.atMs, q.traceId = a.traceId, q.query = g.query
}
RETURN count(*) AS counted
