// mode: write
// One re-check of an open ticket: still a gap (the check moves on to $seq), or answerable now,
// with the new answer's id and citations, announced on the scope's change feed
// (`gapAnswerable`, numbered like every event: cypher/ingest/append_change.cypher). A ticket
// that was resolved or re-checked meanwhile is left as it is.
// :param ticketId => 'tkt_0123456789abcdef'
// :param seq => 12
// :param answerable => true
// :param answerId => 't_0123456789abcdef'
// :param answerStatus => 'answered'
// :param citations => '[{"documentId": "d_...", ...}]'
// :param now => '2026-12-01T00:00:00.000Z'
MATCH (t:Ticket {id: $ticketId})
SET t.lastRecheckAttempt = $now  // the ticket's lock before its status is read, as resolve takes it
WITH t WHERE t.status = 'open' AND t.checkedSeq < $seq
SET t.checkedSeq = $seq, t.checkedAt = $now, t.lastAnswerId = $answerId,
    t.lastAnswerStatus = $answerStatus
WITH t
CALL (t) {
  WITH t WHERE $answerable
  SET t.status = 'answerable', t.answerableAt = $now, t.answerableAnswerId = $answerId,
      t.answerableCitations = $citations
  MERGE (c:ChangeCounter {feed: t.scope})
  ON CREATE SET c.seq = 0
  SET c.seq = c.seq + 1
  CREATE (:ChangeEvent {
    scope: t.scope, seq: c.seq, kind: 'gapAnswerable', ticketId: t.id,
    at: toString(datetime()), atMs: timestamp()
  })
}
RETURN t.status AS status
