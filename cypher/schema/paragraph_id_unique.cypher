// mode: schema
CREATE CONSTRAINT paragraph_id_unique IF NOT EXISTS
FOR (p:Paragraph) REQUIRE p.id IS UNIQUE
