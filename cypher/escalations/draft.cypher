// mode: read
// returns: id, scope, status, content, contentHash, createdAt, expiresAtMs, ticketId
// One draft, if the key owns it (a draft of another key reads as missing).
// :param draftId => 'esc_0123456789abcdef'
// :param keyName => 'support'
MATCH (d:EscalationDraft {id: $draftId})
WHERE d.keyName = $keyName
RETURN d.id AS id, d.scope AS scope, d.status AS status, d.content AS content,
       d.contentHash AS contentHash, d.createdAt AS createdAt, d.expiresAtMs AS expiresAtMs,
       d.ticketId AS ticketId
