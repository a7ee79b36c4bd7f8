// mode: schema
CREATE INDEX ops_latency_hour IF NOT EXISTS
FOR (l:OpsLatencyHour) ON (l.hourMs)
