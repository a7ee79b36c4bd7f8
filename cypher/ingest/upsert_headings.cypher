// mode: write
UNWIND $rows AS row
MERGE (h:Heading {id: row.id})
SET h += row, h.documentId = $documentId, h.scope = $scope
