// mode: read
// returns: feed
// The scopes whose oldest kept change-feed event was written before $cutoffMs: those feed
// retention deletes from (expire_feed_events.cypher). One seek per scope on the
// change_event_unique index, in its order (hence ORDER BY e.scope too: no sort), so a pass
// reads one event of each feed.
// :param scope => null
// :param cutoffMs => 0
MATCH (c:ChangeCounter)
WHERE $scope IS NULL OR c.feed = $scope
CALL (c) {
  MATCH (e:ChangeEvent)
  WHERE e.scope = c.feed AND e.seq > coalesce(c.deletedThrough, 0)
  WITH e ORDER BY e.scope, e.seq LIMIT 1
  RETURN e.atMs AS oldestMs
}
WITH c, oldestMs
WHERE oldestMs < $cutoffMs
RETURN c.feed AS feed
ORDER BY feed
