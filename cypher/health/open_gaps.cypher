// mode: read
// returns: key, ticketId, question, status, createdAt, timesAsked
// Escalation tickets of a scope still waiting for an editor ($statuses: open, and answerable:
// a later answer may close the gap but nobody has resolved it), oldest first: keyed by the
// creation time (15 digits of milliseconds) and the ticket id, after the cursor ($after: the
// last key of the previous page, '' for the first). timesAsked: the answer records still kept
// in the scope (retention: docs/records.md) whose question is the ticket's, case and outer
// spaces aside, the gap re-checks' own ($recheckKey) not counted; one scan of the records
// serves the whole page. One more row than the page is asked for, to know whether more exist.
// :param scope => 'kitchen'
// :param statuses => ['open', 'answerable']
// :param after => ''
// :param limit => 51
// :param recheckKey => 'escalation-recheck'
MATCH (:Scope {scope: $scope})<-[:IN_SCOPE]-(t:Ticket)
WHERE t.status IN $statuses
WITH t, right('000000000000000' + toString(t.createdAtMs), 15) + ' ' + t.id AS key
WHERE key > $after
WITH t, key ORDER BY key LIMIT $limit
WITH collect({key: key, ticketId: t.id, question: t.question, status: t.status,
              createdAt: t.createdAt, asked: toLower(trim(t.question))}) AS page
CALL (page) {
  WITH [ticket IN page | ticket.asked] AS questions
  MATCH (r:AnswerRecord)
  WHERE r.scope = $scope AND coalesce(r.keyName, '') <> $recheckKey
    AND toLower(trim(r.query)) IN questions
  WITH toLower(trim(r.query)) AS asked, count(*) AS times
  RETURN collect({asked: asked, times: times}) AS counts  // one row, even when none matched
}
UNWIND page AS ticket
RETURN ticket.key AS key, ticket.ticketId AS ticketId, ticket.question AS question,
       ticket.status AS status, ticket.createdAt AS createdAt,
       coalesce(head([c IN counts WHERE c.asked = ticket.asked | c.times]), 0) AS timesAsked
ORDER BY key
