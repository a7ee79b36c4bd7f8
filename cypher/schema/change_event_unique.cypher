// mode: schema
// One event per number of a scope's feed; a page after a cursor is a range seek on it.
CREATE CONSTRAINT change_event_unique IF NOT EXISTS
FOR (e:ChangeEvent) REQUIRE (e.scope, e.seq) IS UNIQUE
