// mode: write
// Deletes up to $batch of a scope's oldest change-feed events written before $cutoffMs, in
// number order, stopping at the first younger one: what the feed keeps is always every event
// after one number. The counter keeps that number (deletedThrough, the newest event deleted),
// so a cursor before it answers 410 without the deleted events (service/api/changes.py). The
// first SET takes the counter's write lock, the one every append takes, before deletedThrough
// is read: replicas running retention at once delete each event once. The caller repeats while
// a batch comes back full. Ordered by scope (one value) and seq: the index gives that order,
// so a batch reads $batch events.
// :param scope => 'waterglass'
// :param cutoffMs => 0
// :param batch => 1000
MATCH (c:ChangeCounter {feed: $scope})
SET c.retentionAtMs = timestamp()
WITH c
CALL (c) {
  MATCH (e:ChangeEvent)
  WHERE e.scope = c.feed AND e.seq > coalesce(c.deletedThrough, 0)
  WITH e ORDER BY e.scope, e.seq LIMIT $batch
  RETURN collect(e) AS events
}
WITH c, events,
     [i IN range(0, size(events) - 1) WHERE events[i].atMs >= $cutoffMs][0] AS firstKept
WITH c, events[..coalesce(firstKept, size(events))] AS old
CALL (c, old) {
  WITH c, old WHERE size(old) > 0
  SET c.deletedThrough = old[-1].seq
  FOREACH (e IN old | DETACH DELETE e)
}
RETURN size(old) AS deleted
