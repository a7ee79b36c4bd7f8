// mode: schema
// GET /v1/escalations pages tickets newest first.
CREATE INDEX ticket_created IF NOT EXISTS
FOR (t:Ticket) ON (t.createdAtMs)
