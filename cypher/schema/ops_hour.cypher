// mode: schema
// The operations rollups are found by their hour or day: a window is a range of them.
CREATE INDEX ops_hour IF NOT EXISTS
FOR (h:OpsHour) ON (h.hourMs)
