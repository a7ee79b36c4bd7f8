// mode: read
// returns: seq, kind, documentId, path, oldVersion, newVersion, model, previousModel, ticketId
// returns: at, subjects, failedGates
// A scope's publication events after a cursor, oldest first (GET /v1/changes): a range seek on
// the change_event_unique constraint's index. Ordered by scope (one value) and seq, so the index
// gives the order and a page reads $limit events, not every event after the cursor.
// :param scope => 'waterglass'
// :param after => 0
// :param limit => 100
MATCH (e:ChangeEvent)
WHERE e.scope = $scope AND e.seq > $after
RETURN e.seq AS seq, e.kind AS kind, e.documentId AS documentId, e.path AS path,
       e.oldVersion AS oldVersion, e.newVersion AS newVersion, e.model AS model,
       e.previousModel AS previousModel, e.ticketId AS ticketId, e.at AS at,
       e.subjects AS subjects, e.failedGates AS failedGates
ORDER BY e.scope, e.seq
LIMIT $limit
