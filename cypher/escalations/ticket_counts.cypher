// mode: read
// returns: scope, status, tickets
// Tickets by scope and status (/metrics).
MATCH (t:Ticket)
RETURN t.scope AS scope, t.status AS status, count(*) AS tickets
