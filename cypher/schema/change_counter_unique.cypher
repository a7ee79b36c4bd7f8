// mode: schema
// Two first writers of a scope's feed MERGE one counter, never two.
CREATE CONSTRAINT change_counter_unique IF NOT EXISTS
FOR (c:ChangeCounter) REQUIRE c.feed IS UNIQUE
