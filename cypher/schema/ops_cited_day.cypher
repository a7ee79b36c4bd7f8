// mode: schema
CREATE INDEX ops_cited_day IF NOT EXISTS
FOR (c:OpsCitedDay) ON (c.dayMs)
