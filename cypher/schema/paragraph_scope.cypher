// mode: schema
CREATE INDEX paragraph_scope IF NOT EXISTS
FOR (p:Paragraph) ON (p.scope)
