// mode: read
// returns: id, scope, question, seq
// Open tickets whose scope published a document change (added, updated, restored) after the
// ticket was last asked: each is asked again, and `seq` is where its next check starts.
// :param batch => 20
MATCH (t:Ticket {status: 'open'})
MATCH (c:ChangeCounter {feed: t.scope})
WHERE c.seq > t.checkedSeq
  AND EXISTS {
    MATCH (e:ChangeEvent)
    WHERE e.scope = t.scope AND e.seq > t.checkedSeq
      AND e.kind IN ['added', 'updated', 'restored']
  }
RETURN t.id AS id, t.scope AS scope, t.question AS question, c.seq AS seq
ORDER BY t.createdAtMs
LIMIT $batch
