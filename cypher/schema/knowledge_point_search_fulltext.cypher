// mode: schema
// Alias resolution: a knowledge point's title, aliases and their compact forms (nameKeys:
// 'waterglass' for 'Water glass'), restricted to a scope inside Lucene through scopeKey.
CREATE FULLTEXT INDEX knowledge_point_search IF NOT EXISTS
FOR (k:KnowledgePoint) ON EACH [k.title, k.aliasText, k.nameKeys, k.scopeKey]
