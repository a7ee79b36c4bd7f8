// mode: read
// returns: ticket
// One ticket with the paragraphs it cites (the API checks its scope against the key's grant).
// :param ticketId => 'tkt_0123456789abcdef'
MATCH (t:Ticket {id: $ticketId})
RETURN t {.*, cited: [(t)-[:CITES]->(p:Paragraph) | p.id]} AS ticket
