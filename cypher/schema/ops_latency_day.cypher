// mode: schema
CREATE INDEX ops_latency_day IF NOT EXISTS
FOR (l:OpsLatencyDay) ON (l.dayMs)
