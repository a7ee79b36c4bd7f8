// mode: schema
CREATE CONSTRAINT heading_id_unique IF NOT EXISTS
FOR (h:Heading) REQUIRE h.id IS UNIQUE
