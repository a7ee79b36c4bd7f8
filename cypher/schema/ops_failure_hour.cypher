// mode: schema
CREATE INDEX ops_failure_hour IF NOT EXISTS
FOR (f:OpsFailureHour) ON (f.hourMs)
