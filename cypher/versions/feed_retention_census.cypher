// mode: read
// returns: feeds, events
// What feed retention would delete (`kgs retention apply --dry-run`): in each scope's feed,
// the events before the first one written at or after $cutoffMs, as expire_feed_events.cypher
// deletes them. It reads every event of the feeds it counts.
// :param scope => null
// :param cutoffMs => 0
MATCH (c:ChangeCounter)
WHERE $scope IS NULL OR c.feed = $scope
CALL (c) {
  OPTIONAL MATCH (y:ChangeEvent)
  WHERE y.scope = c.feed AND y.seq > coalesce(c.deletedThrough, 0) AND y.atMs >= $cutoffMs
  RETURN min(y.seq) AS firstKept
}
CALL (c, firstKept) {
  MATCH (e:ChangeEvent)
  WHERE e.scope = c.feed AND e.seq > coalesce(c.deletedThrough, 0)
    AND (firstKept IS NULL OR e.seq < firstKept)
  RETURN count(e) AS events
}
WITH events
WHERE events > 0
RETURN count(*) AS feeds, coalesce(sum(events), 0) AS events
