// mode: schema
// At most one ticket per draft, whatever happens to the confirmation's lock (a second line of
// defence behind cypher/escalations/confirm_draft.cypher).
CREATE CONSTRAINT ticket_draft_unique IF NOT EXISTS
FOR (t:Ticket) REQUIRE t.draftId IS UNIQUE
