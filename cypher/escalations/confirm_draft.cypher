// mode: write
// Confirm a draft into a ticket, at most once. The first SET takes the draft's write lock
// before its status is read, so concurrent confirmations of one draft run one after the other:
// the first creates the ticket, the others read `confirmed` and the same ticket id. The ticket
// is created only for the owning key, while the draft is pending and unexpired, and only when
// the confirmation carries the draft's exact content ($contentHash). Everything is one
// transaction: a ticket exists with all its links, or not at all.
// :param draftId => 'esc_0123456789abcdef'
// :param keyName => 'support'
// :param contentHash => 'sha256 hex'
// :param ticketId => 'tkt_0123456789abcdef'
// :param nowMs => 1764547200000
// :param now => '2026-12-01T00:00:00.000Z'
MATCH (d:EscalationDraft {id: $draftId})
WHERE d.keyName = $keyName
SET d.lastConfirmAttemptMs = $nowMs
WITH d, d.status AS before, d.expiresAtMs <= $nowMs AS expired,
     d.contentHash = $contentHash AS same
WITH d, before, expired, same, before = 'pending' AND NOT expired AND same AS creating
CALL (d, creating) {
  WITH d WHERE creating
  OPTIONAL MATCH (c:ChangeCounter {feed: d.scope})
  CREATE (t:Ticket {
    id: $ticketId, draftId: d.id, scope: d.scope, question: d.question, keyName: d.keyName,
    answerId: d.answerId, answerStatus: d.answerStatus, missing: d.missing, content: d.content,
    contentHash: d.contentHash, status: 'open', createdAt: $now, createdAtMs: $nowMs,
    checkedSeq: coalesce(c.seq, 0)
  })
  SET d.status = 'confirmed', d.ticketId = t.id, d.confirmedAt = $now
  MERGE (s:Scope {scope: d.scope})
  CREATE (t)-[:IN_SCOPE]->(s)
  CREATE (t)-[:FROM_DRAFT]->(d)
  WITH d, t
  CALL (d, t) {
    MATCH (d)-[:CITES]->(p:Paragraph)
    CREATE (t)-[:CITES]->(p)
  }
  CALL (d, t) {
    MATCH (r:AnswerRecord {id: d.answerId})
    CREATE (t)-[:RAISED_FROM]->(r)
  }
}
RETURN before, expired, same, creating AS created, d.ticketId AS ticketId
