// mode: schema
// The newest failure records first; retention deletes the oldest.
CREATE INDEX request_failure_created IF NOT EXISTS
FOR (f:RequestFailure) ON (f.createdAtMs)
