// mode: schema
CREATE INDEX knowledge_point_scope_degree IF NOT EXISTS
FOR (k:KnowledgePoint) ON (k.scope, k.degree)
