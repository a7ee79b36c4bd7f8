// mode: schema
// A scope as a node, made by its first ingest or its first ticket: tickets hang off it, so
// Neo4j Browser shows a scope's knowledge gaps in one hop, and it holds the scope's degree
// histogram (ingest/refresh_degrees). It keeps the `scope` property every label of a scope
// carries, so deleting a scope's nodes deletes it too.
CREATE CONSTRAINT scope_unique IF NOT EXISTS
FOR (s:Scope) REQUIRE s.scope IS UNIQUE
