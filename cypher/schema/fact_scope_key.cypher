// mode: schema
// The health report: a scope's facts grouped by subject key (cypher/health/).
CREATE INDEX fact_scope_key IF NOT EXISTS
FOR (f:Fact) ON (f.scope, f.key)
