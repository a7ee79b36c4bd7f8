// mode: read
// returns: deletedThrough
// The newest event number of a scope's feed that retention deleted (0: none), from the
// scope's counter (cypher/versions/expire_feed_events.cypher): a cursor before it has missed
// deleted events, and GET /v1/changes answers 410 for it.
// :param scope => 'waterglass'
OPTIONAL MATCH (c:ChangeCounter {feed: $scope})
RETURN coalesce(c.deletedThrough, 0) AS deletedThrough
