// mode: read
// returns: draftStatus, draftTicketId, tickets
// A draft's status and every ticket made from it, with its links: once confirmed, exactly one
// ticket linked to its scope, its answer record (when recorded) and the cited paragraphs; none
// before. What the tests check after concurrent confirmations and after a kill.
// :param draftId => 'esc_0123456789abcdef'
MATCH (d:EscalationDraft {id: $draftId})
OPTIONAL MATCH (t:Ticket {draftId: d.id})
RETURN d.status AS draftStatus, d.ticketId AS draftTicketId,
       collect(t {
         .id, .status,
         scopes: [(t)-[:IN_SCOPE]->(s:Scope) | s.scope],
         answers: COUNT { (t)-[:RAISED_FROM]->(:AnswerRecord) },
         cited: COUNT { (t)-[:CITES]->(:Paragraph) },
         draftCited: COUNT { (d)-[:CITES]->(:Paragraph) }
       }) AS tickets
