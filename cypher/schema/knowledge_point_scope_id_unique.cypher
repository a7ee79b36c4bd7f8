// mode: schema
// Knowledge point ids are unique within a scope (the same id may live in two scopes).
CREATE CONSTRAINT knowledge_point_scope_id_unique IF NOT EXISTS
FOR (k:KnowledgePoint) REQUIRE (k.scope, k.id) IS UNIQUE
