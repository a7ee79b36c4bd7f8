// mode: write
// Cancel a pending draft, for good (the draft's lock first, as confirmation takes it): a
// cancelled draft is never confirmed, and a confirmed one is never cancelled.
// :param draftId => 'esc_0123456789abcdef'
// :param keyName => 'support'
// :param now => '2026-12-01T00:00:00.000Z'
MATCH (d:EscalationDraft {id: $draftId})
WHERE d.keyName = $keyName
SET d.lastCancelAttempt = $now
WITH d, d.status AS before
CALL (d, before) {
  WITH d WHERE before = 'pending'
  SET d.status = 'cancelled', d.cancelledAt = $now
}
RETURN before
