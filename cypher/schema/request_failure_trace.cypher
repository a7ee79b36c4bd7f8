// mode: schema
CREATE INDEX request_failure_trace IF NOT EXISTS
FOR (f:RequestFailure) ON (f.traceId)
