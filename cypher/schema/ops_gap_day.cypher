// mode: schema
CREATE INDEX ops_gap_day IF NOT EXISTS
FOR (q:OpsGapDay) ON (q.dayMs)
