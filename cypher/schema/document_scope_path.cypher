// mode: schema
CREATE INDEX document_scope_path IF NOT EXISTS
FOR (d:Document) ON (d.scope, d.path)
