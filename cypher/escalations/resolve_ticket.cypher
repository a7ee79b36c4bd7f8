// mode: write
// An editor closes a ticket (open or answerable) with what was done; resolving is final, so a
// second resolution changes nothing and reports the status it found.
// :param ticketId => 'tkt_0123456789abcdef'
// :param keyName => 'editor'
// :param resolution => 'added kitchen/stock-clarity.md'
// :param now => '2026-12-01T00:00:00.000Z'
MATCH (t:Ticket {id: $ticketId})
SET t.lastResolveAttempt = $now
WITH t, t.status AS before
CALL (t, before) {
  WITH t WHERE before <> 'resolved'
  SET t.status = 'resolved', t.resolution = $resolution, t.resolvedBy = $keyName,
      t.resolvedAt = $now
}
RETURN before, t {.*, cited: [(t)-[:CITES]->(p:Paragraph) | p.id]} AS ticket
