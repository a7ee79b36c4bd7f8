// mode: schema
// Title and alias matches for alias resolution; aliasText is the aliases joined by " | ".
CREATE FULLTEXT INDEX knowledge_point_names IF NOT EXISTS
FOR (k:KnowledgePoint) ON EACH [k.title, k.aliasText]
