// mode: write
// A knowledge point's profile comes from the document that describes it; a document that only
// declares it (DECLARED_IN) fills the profile only while no describing document exists.
MATCH (d:Document {id: $documentId})
UNWIND $rows AS row
MERGE (k:KnowledgePoint {scope: $scope, id: row.id})
WITH d, k, row,
     row.link = 'DESCRIBED_IN' OR NOT EXISTS { (k)-[:DESCRIBED_IN]->(:Document) } AS owns
SET k += CASE WHEN owns
              THEN {title: row.title, aliases: row.aliases, aliasText: row.aliasText,
                    nameKeys: row.nameKeys, kind: row.kind, summary: row.summary}
              ELSE {} END
SET k.scopeKey = $scopeKey
REMOVE k.stub
MERGE (k)-[:$(row.link)]->(d)
